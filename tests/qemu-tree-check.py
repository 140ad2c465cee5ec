#!/usr/bin/env python3
"""qemu-tree-check.py - every trace-events file under a directory, end to end.

  qemu-tree-check.py TOP DIR SCRATCH PREFIX

For each DIR/**/trace-events (group named after its folder, as QEMU's
meson.build does: hw/block -> hw_block, the top file -> root):
  1. build/tracegen --check, then -g GROUP -o SCRATCH/GROUP;
  2. the generated source and a caller of every trace_<event>() with
     arguments of the declared types compile with gcc and clang (when
     present) at -Wall -Wextra -Wformat=2 -Werror, without a diagnostic;
  3. the events are rendered as QEMU's log backend renders them, printf of
     "name " FMT "\\n" (the format as written, PRI macros and all), and the
     library's log output of the same calls must be the same text;
  4. traceql import --log of that text with --events FILE must give back
     every argument, typed as the library stores it, twice: with small
     values and with extreme ones (negative, above INT64_MAX).
Prints PASS:/FAIL: lines for tests/run, PREFIX-GROUP, and a '#' summary.
A %s next to another %s has no text between them to split at; traceql
takes the shortest choice there (traceql(1)), and such an argument is
counted apart, not checked.  A '*' width's argument must come back NULL.
An event whose format has a newline inside is written on more lines, and
must come back whole too (traceql reads as many lines as its format has).
"""
import json
import os
import re
import shutil
import subprocess
import sys

TOP, TREE, OUT, PREFIX = sys.argv[1:5]
B = os.path.join(TOP, 'build')
CFLAGS = ['-std=gnu11', '-Wall', '-Wextra', '-Wformat=2', '-Werror', '-Wno-format-nonliteral',
          '-Wshadow', '-Wstrict-prototypes', '-Wmissing-prototypes']
CCS = [c for c in ('gcc', 'clang') if shutil.which(c)]

# QEMU's scripts/tracetool/__init__.py: Event._CRE and Arguments.build()
CRE = re.compile(r"((?P<props>[\w\s]+)\s+)?(?P<name>\w+)\((?P<args>[^)]*)\)\s*"
                 r"(?:(?:(?P<fmt_trans>\".+),)?\s*(?P<fmt>\".+))?\s*")


def parse(path):
    evs = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            g = CRE.match(line).groupdict('')
            args = []
            for a in g['args'].split(','):
                a = a.strip()
                if a == 'void':
                    continue
                if '*' in a:
                    t, n = a.rsplit('*', 1)
                    t += '*'
                else:
                    t, n = a.rsplit(None, 1)
                args.append((t.strip(), n.strip()))
            evs.append(dict(name=g['name'], props=g['props'].split(), args=args,
                            fmt=g['fmt'].rstrip()))
    return evs


PRI = {'8': '', '16': '', '32': '', '64': 'l', 'PTR': 'l', 'MAX': 'j'}


def c_string(raw):
    """the text a sequence of literals and PRI macros denotes (glibc x86-64)"""
    s, i = '', 0
    while i < len(raw):
        if raw[i].isspace():
            i += 1
        elif raw[i] == '"':
            j = i + 1
            while raw[j] != '"':
                j += 2 if raw[j] == '\\' else 1
            s += raw[i + 1:j].encode().decode('unicode_escape')
            i = j + 1
        else:
            m = re.match(r'PRI([diouxX])(8|16|32|64|PTR|MAX)', raw[i:])
            s += PRI[m.group(2)] + m.group(1)
            i += m.end()
    return s


CONV = re.compile(r"%[-+ #0']*(\*|\d+)?(?:\.(\*|\d*))?(?:hh|h|ll|l|j|z|t|L)?([diouxXcspn%])")


def conversions(fmt):
    """per argument: (conversion letter, whether traceql can give it back):
    a '*' width's argument is not shown (traceql stores NULL), and a %s next
    to another %s has no text between them to split at"""
    out = []
    ms = [m for m in CONV.finditer(fmt) if m.group(3) != '%']
    for i, m in enumerate(ms):
        glued = m.group(3) == 's' and any(
            0 <= j < len(ms) and ms[j].group(3) == 's' and
            (ms[j].start() == m.end() or ms[j].end() == m.start()) for j in (i - 1, i + 1))
        for star in (m.group(1), m.group(2)):
            if star == '*':
                out.append(('*', True))
        out.append((m.group(3), glued))
    return out


INTS = {
    'int': (1, 32), 'signed': (1, 32), 'signed int': (1, 32), 'unsigned': (0, 32),
    'unsigned int': (0, 32), 'long': (1, 64), 'long int': (1, 64), 'signed long': (1, 64),
    'unsigned long': (0, 64), 'long unsigned int': (0, 64), 'unsigned long int': (0, 64),
    'long long': (1, 64), 'long long int': (1, 64), 'unsigned long long': (0, 64),
    'short': (1, 16), 'short int': (1, 16), 'unsigned short': (0, 16),
    'short unsigned int': (0, 16), 'unsigned short int': (0, 16),
    'int8_t': (1, 8), 'uint8_t': (0, 8), 'int16_t': (1, 16), 'uint16_t': (0, 16),
    'int32_t': (1, 32), 'uint32_t': (0, 32), 'int64_t': (1, 64), 'uint64_t': (0, 64),
    'size_t': (0, 64), 'ssize_t': (1, 64), 'uintptr_t': (0, 64), 'ptrdiff_t': (1, 64),
    'unsigned char': (0, 8), 'signed char': (1, 8), 'char': (1, 8), 'bool': (0, 1),
}


def letters(k):
    s = ''
    while True:
        s += chr(ord('a') + k % 26)
        k //= 26
        if not k:
            return s


def sample(t, conv, k, extreme):
    """(C expression of type t, the value traceql must store)"""
    b = ' '.join(w for w in t.replace('*', ' * ').split() if w != 'const')
    if '*' in b:
        if b.replace(' ', '') == 'char*' and conv == 's':
            v = 'str' + letters(k)
            return '(%s)"%s"' % (t, v), v
        v = (0xffff800000001000 if extreme else 0x1000) + 16 * k
        return '(%s)(uintptr_t)0x%xULL' % (t, v), v - (1 << 64) if v >= 1 << 63 else v
    if b == 'bool':
        return 'true', 1
    if b == 'char' or conv == 'c':
        v = ord('a') + k % 26
        return '(%s)%d' % (t, v), v
    signed, bits = INTS[b]
    v = 3 + k % 97
    if extreme and conv != '*':             # a negative '*' width is a '-' flag
        v = -v if signed else (1 << bits) - v
    suffix = 'ULL' if v >= 1 << 63 else 'LL' if abs(v) >= 1 << 31 else ''
    return '(%s)(%d%s)' % (t, v, suffix), v - (1 << 64) if v >= 1 << 63 else v


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def text(b):
    return b.decode('utf-8', 'replace').strip()


def check_file(rel, tot):
    d = os.path.dirname(rel)
    group = re.sub(r'[^A-Za-z0-9]', '_', d) if d else 'root'
    path = os.path.join(TREE, rel)
    w = os.path.join(OUT, group)
    os.makedirs(w, exist_ok=True)
    evs = parse(path)
    tot['files'] += 1
    tot['events'] += len(evs)
    r = run([B + '/tracegen', '--check', path])
    if r.returncode:
        tot['refused'] += 1
        return 'refused: ' + text(r.stderr)[:300]
    r = run([B + '/tracegen', '-g', group, '-o', w, path])
    if r.returncode:
        tot['refused'] += 1
        return 'generate: ' + text(r.stderr)[:300]
    calls = {False: [], True: []}
    render = {False: [], True: []}
    expect = {False: [], True: []}
    k = 0
    for e in evs:
        fmt = c_string(e['fmt']) if e['fmt'] else ''
        cv = conversions(fmt)
        for extreme in (False, True):
            exprs, vals = [], []
            for i, (t, _) in enumerate(e['args']):
                conv, glued = cv[i] if i < len(cv) else ('d', False)
                ex, v = sample(t, conv, k + i, extreme)
                exprs.append(ex)
                if conv == '*':
                    v = 'NULL'
                vals.append(None if glued else v)
            calls[extreme].append('\ttrace_%s(%s);' % (e['name'], ', '.join(exprs)))
            if 'disable' not in e['props']:
                render[extreme].append('\tprintf("%s " %s "\\n"%s);' % (
                    e['name'], e['fmt'] or '""', ''.join(', ' + x for x in exprs)))
                expect[extreme].append((e['name'], vals))
        k += len(e['args'])
    with open(w + '/caller.c', 'w') as f:
        f.write('#include <stdint.h>\n#include <stdbool.h>\n#include "trace-%s.h"\n'
                'void call_small(void);\nvoid call_extreme(void);\n' % group)
        for extreme, fn in ((False, 'call_small'), (True, 'call_extreme')):
            f.write('void %s(void)\n{\n%s\n}\n' % (fn, '\n'.join(calls[extreme])))
    with open(w + '/main.c', 'w') as f:
        f.write('#include <string.h>\n#include <tracejournal.h>\n'
                'void call_small(void);\nvoid call_extreme(void);\n'
                'int main(int argc, char **argv)\n{\n\t(void)argc;\n\ttj_init("qt");\n'
                '\tif (strcmp(argv[1], "extreme") == 0)\n\t\tcall_extreme();\n'
                '\telse\n\t\tcall_small();\n\ttj_shutdown();\n\treturn 0;\n}\n')
    with open(w + '/render.c', 'w') as f:
        f.write('#include <stdio.h>\n#include <inttypes.h>\n#include <stdbool.h>\n'
                '#include <stddef.h>\n#include <string.h>\n#include <sys/types.h>\n'
                'int main(int argc, char **argv)\n{\n\t(void)argc;\n'
                '\tif (strcmp(argv[1], "extreme") == 0) {\n%s\n\t} else {\n%s\n\t}\n'
                '\treturn 0;\n}\n' % ('\n'.join(render[True]), '\n'.join(render[False])))
    for cc in CCS:
        for src in ('trace-%s.c' % group, 'caller.c'):
            r = run([cc] + CFLAGS + ['-I' + TOP + '/include', '-I' + w, '-c', w + '/' + src,
                                     '-o', '%s/%s.%s.o' % (w, src, cc)])
            if r.returncode or r.stderr.strip():
                tot['warnings'] += 1
                return '%s %s: %s' % (cc, src, text(r.stderr)[:300])
    # linked as the library was built (a sanitized build needs its runtime)
    r = run([os.environ.get('CC') or 'cc'] + os.environ.get('SAN_FLAGS', '').split() +
            ['-I' + TOP + '/include', '-I' + w, '-o', w + '/prog', w + '/trace-%s.c' % group,
             w + '/caller.c', w + '/main.c', B + '/libtracejournal.a', '-lsystemd', '-lpthread'])
    if r.returncode:
        return 'link: ' + text(r.stderr)[:300]
    # QEMU's own printf of its formats may not pass -Wformat (a uint64_t for %d in an
    # old file would); it is the reference, not code under test
    r = run(['gcc', '-w', '-o', w + '/render', w + '/render.c'])
    if r.returncode:
        return 'render: ' + text(r.stderr)[:300]
    env = dict(os.environ, TJ_OUTPUT='log', TJ_EVENTS='*', TJ_SYNC='1', TJ_QUIET='1')
    for mode in ('small', 'extreme'):
        extreme = mode == 'extreme'
        qlog = run([w + '/render', mode]).stdout
        lib = run([w + '/prog', mode], env=env).stderr
        if lib != qlog:
            for a, b in zip(qlog.splitlines() + [b''], lib.splitlines() + [b'']):
                if a != b:
                    return '%s: library log %r, QEMU log backend %r' % (mode, text(b), text(a))
        with open(w + '/%s.log' % mode, 'wb') as f:
            f.write(qlog)
        db = w + '/%s.db' % mode
        if os.path.exists(db):
            os.remove(db)
        r = run([B + '/traceql', '--db', db, 'import', '--log', w + '/%s.log' % mode,
                 '--events', path])
        if r.returncode:
            return '%s: import: %s' % (mode, text(r.stderr)[:300])
        r = run([B + '/traceql', '--db', db, '--no-sync', '--format', 'json',
                 'select event, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, message '
                 'from events where event != \'\' order by id'])
        rows = json.loads(r.stdout)
        want = expect[extreme]
        if [x['event'] for x in rows] != [n for n, _ in want]:
            got = set(x['event'] for x in rows)
            missed = [n for n, _ in want if n not in got]
            tot['unmatched'] += len(missed)
            return '%s: not recognised: %s' % (mode, ' '.join(missed[:5]))
        for (name, vals), row in zip(want, rows):
            if row is None:
                continue
            for i, v in enumerate(vals):
                if v is None:
                    tot['ambiguous'] += 1
                    continue
                tot['fields'] += 1
                if row['a%d' % i] != (None if v == 'NULL' else v):
                    return '%s: %s argument %d: %r, not %r (%r)' % (
                        mode, name, i, row['a%d' % i], v, row['message'])
    return None


def main():
    files = sorted(os.path.relpath(os.path.join(d, 'trace-events'), TREE)
                   for d, _, fs in os.walk(TREE) if 'trace-events' in fs)
    tot = dict(files=0, events=0, refused=0, warnings=0, fields=0, ambiguous=0, unmatched=0)
    for rel in files:
        d = os.path.dirname(rel)
        name = '%s-%s' % (PREFIX, d.replace('/', '-') if d else 'root')
        why = check_file(rel, tot)
        if why is None:
            print('PASS: ' + name)
        else:
            print('FAIL: %s (%s)' % (name, why.replace('\n', ' | ')))
    print('# %(files)d files, %(events)d events, %(refused)d refused, %(warnings)d with '
          'compiler diagnostics, %(fields)d argument values recovered (small and extreme '
          'values), %(ambiguous)d not checked (%%s%%s), %(unmatched)d events not '
          'recognised' % tot)
    if not files:
        print('FAIL: %s-nonempty (no trace-events file under %s)' % (PREFIX, TREE))


main()
