/*
 * tracegen.c - the tracegen command: trace-events files in, C code out.
 *
 *     tracegen --group=NAME --header=OUT.h --source=OUT.c TRACE-EVENTS...
 *
 * Reads every input (te_parse.c), stops with exit status 1 after printing all
 * the errors it found, otherwise renders the outputs in memory (te_emit.c)
 * and replaces them atomically (te_out.c).  See tracegen(1).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "te.h"

/* Exit statuses, documented in tracegen(1). */
enum tracegen_exit {
        TRACEGEN_EXIT_OK = 0,
        TRACEGEN_EXIT_INPUT = 1,        /* a trace-events file has errors */
        TRACEGEN_EXIT_USAGE = 2,        /* bad command line */
        TRACEGEN_EXIT_IO = 3,           /* an input or output file could not be read/written */
};

struct tracegen_opts {
        const char *group, *header, *source, *header_include, *output_dir;
        unsigned backends;
        bool have_backend;              /* a --backend or --backends was given */
        bool check;
};

/* An output: its path and the text rendered for it. */
struct tracegen_output {
        char *path;
        char *text;
        size_t len;
        char *tmp;                      /* te_out_prepare()'s */
        char *target;
};

/* "tracegen: PATH: reason", the path's control characters as \xHH. */
static void tracegen_file_error(const char *path, int errnum)
{
        fputs("tracegen: ", stderr);
        te_fputs_quoted(path, NULL, stderr);
        fprintf(stderr, ": %s\n", strerror(errnum));
}

static void tracegen_nomem(void)
{
        fputs("tracegen: out of memory\n", stderr);
        exit(TRACEGEN_EXIT_IO);
}

static void tracegen_usage_error(const char *msg, const char *arg)
{
        fprintf(stderr, "tracegen: %s%s%s\nTry 'tracegen --help' for more information.\n",
                msg, arg ? ": " : "", arg ? arg : "");
        exit(TRACEGEN_EXIT_USAGE);
}

static void tracegen_help(void)
{
        fputs("Usage: tracegen [OPTION]... TRACE-EVENTS...\n"
              "Generate C tracing code for tracejournal from QEMU-style trace-events files.\n"
              "\n"
              "  -g, --group=NAME           group name (a C identifier); required to generate\n"
              "  -H, --header=FILE          write the header to FILE\n"
              "  -s, --source=FILE          write the source to FILE\n"
              "  -I, --header-include=NAME  what the source #includes (default: the header's\n"
              "                             file name)\n"
              "  -o, --output-dir=DIR       write relative --header/--source paths under DIR;\n"
              "                             without them, write DIR/trace-GROUP.h and .c\n"
              "  -b, --backend=LIST         tracejournal (default), dtrace, ust or nop; a\n"
              "                             comma-separated list or repeated for several\n"
              "      --backends=LIST        the same (QEMU's spelling)\n"
              "  -c, --check                only check the input files\n"
              "  -h, --help                 show this help and exit\n"
              "  -V, --version              show the version and exit\n"
              "\n"
              "The ust backend also writes its tracepoint provider header next to the\n"
              "header, with '-ust.h' in place of '.h'.\n"
              "A TRACE-EVENTS of '-' reads standard input.  Exit status: 0 success,\n"
              "1 errors in the input, 2 usage error, 3 file or memory error.\n"
              "See tracegen(1) and trace-events(5).\n", stdout);
}

/*
 * getopt_long() returned C, ':' or '?'; ARG is argv[optind - 1].  optopt is
 * a short option's letter, the value of a known long option, or 0 for an
 * unknown long one.  ARG is the long option only when it names (or
 * abbreviates) one whose value is optopt: in a group of short options
 * ("-cZ", "-Zc") ARG is the whole group, or even the word before it
 * ("--check -Zc").
 */
static void tracegen_option_error(int c, const char *arg, const struct option *longopts)
{
        char name[3] = { '-', (char) optopt, '\0' };
        size_t len = strcspn(arg, "=");
        bool is_long = false;

        if (strncmp(arg, "--", 2) == 0) {
                is_long = optopt == 0;
                for (const struct option *lo = longopts; lo->name && !is_long; lo++)
                        is_long = lo->val == optopt &&  /* the name, or its abbreviation */
                                  strncmp(lo->name, arg + 2, len - 2) == 0;
        }
        if (c == ':')
                tracegen_usage_error("option requires an argument", is_long ? arg : name);
        /* getopt_long() gives the abbreviation of several as an unknown
         * option ("--he": --header, --header-include, --help): said so */
        if (is_long && !optopt) {
                unsigned nmatch = 0;

                for (const struct option *lo = longopts; lo->name; lo++)
                        nmatch += strncmp(lo->name, arg + 2, len - 2) == 0;
                if (nmatch > 1) {
                        fprintf(stderr, "tracegen: ambiguous option: %.*s (", (int) len, arg);
                        for (const struct option *lo = longopts; lo->name; lo++)
                                if (strncmp(lo->name, arg + 2, len - 2) == 0)
                                        fprintf(stderr, "--%s%s", lo->name,
                                                --nmatch ? ", " : ")\n");
                        fputs("Try 'tracegen --help' for more information.\n", stderr);
                        exit(TRACEGEN_EXIT_USAGE);
                }
        }
        else if (is_long && optopt) {
                /* a known long option given a value it does not take */
                fprintf(stderr, "tracegen: option takes no value: %.*s\n"
                        "Try 'tracegen --help' for more information.\n", (int) len, arg);
                exit(TRACEGEN_EXIT_USAGE);
        }
        tracegen_usage_error("unknown option", is_long || !optopt ? arg : name);
}

/* The exit status once --help or --version is written: TRACEGEN_EXIT_IO,
 * said, when standard output could not take it (a full disk). */
static int tracegen_stdout_done(void)
{
        if (fflush(stdout) == 0 && !ferror(stdout))
                return TRACEGEN_EXIT_OK;
        fprintf(stderr, "tracegen: write error: %s\n", strerror(errno));
        return TRACEGEN_EXIT_IO;
}

static bool tracegen_is_ident(const char *s)
{
        size_t i;

        if (!*s || (*s >= '0' && *s <= '9'))
                return false;
        for (i = 0; s[i]; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
                        return false;
        return true;
}

/*
 * NAME is what the generated code names in '#include "NAME"'; OPT the option
 * it came from.  C has no escapes there (a backslash stays in the name, and
 * gcc takes it so), so a name holding '"', '\\' or a control character
 * cannot be spelled: a usage error.  The message shows a backslash of NAME
 * as \x5c, as it shows a control character as \xHH: else 'a\x09b.h' could
 * be the name with a tab or the one with a backslash, 'x', '0' and '9'.
 */
static void tracegen_check_include(const char *opt, const char *name)
{
        const char *s;

        for (s = name; *s; s++)
                if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20 || *s == 0x7f)
                        break;
        if (!*s)
                return;
        fprintf(stderr, "tracegen: %s: C cannot #include a file whose name holds '\"', '\\' or "
                "a control character: ", opt);
        te_fputs_quoted(name, "\\", stderr);
        fputs("\nTry 'tracegen --help' for more information.\n", stderr);
        exit(TRACEGEN_EXIT_USAGE);
}

static const char *tracegen_basename(const char *path)
{
        const char *s = strrchr(path, '/');

        return s ? s + 1 : path;
}

/* Add the backends of LIST ("tracejournal,dtrace") to O. */
static void tracegen_add_backends(struct tracegen_opts *o, const char *list)
{
        static const struct {
                const char *name;
                unsigned bits;
        } known[] = {
                { "tracejournal", TE_BACKEND_TRACEJOURNAL },
                { "dtrace", TE_BACKEND_DTRACE },
                { "ust", TE_BACKEND_UST },
                { "nop", TE_BACKEND_NOP },
        };
        const char *p = list;

        o->have_backend = true;
        do {
                size_t len = strcspn(p, ","), i;

                for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
                        if (strlen(known[i].name) == len && strncmp(known[i].name, p, len) == 0)
                                break;
                if (i == sizeof(known) / sizeof(known[0]))
                        tracegen_usage_error("unknown backend (use tracejournal, dtrace, ust "
                                             "or nop)", list);
                o->backends |= known[i].bits;
                p += len;
        } while (*p++ == ',');
}

/* Why NAME, a probe's or its provider's, would be replaced by a macro with
 * the dtrace backend: te_parse_macro_name()'s, or <sys/sdt.h>'s own
 * object-like STAP_SDT_ARG_CONSTRAINT ("nor": 'g_nor_semaphore' undeclared).
 * NULL when it is none. */
static const char *tracegen_dtrace_macro(const char *name)
{
        if (strcmp(name, "STAP_SDT_ARG_CONSTRAINT") == 0)
                return "is a macro of <sys/sdt.h>";
        return te_parse_macro_name(name);
}

static void tracegen_parse_opts(int argc, char **argv, struct tracegen_opts *o)
{
        static const struct option longopts[] = {
                { "group", required_argument, NULL, 'g' },
                { "header", required_argument, NULL, 'H' },
                { "source", required_argument, NULL, 's' },
                { "header-include", required_argument, NULL, 'I' },
                { "output-dir", required_argument, NULL, 'o' },
                { "backend", required_argument, NULL, 'b' },
                { "backends", required_argument, NULL, 'b' },
                { "check", no_argument, NULL, 'c' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                { NULL, 0, NULL, 0 },
        };
        const char *why = NULL;
        int c;

        opterr = 0;
        while ((c = getopt_long(argc, argv, ":g:H:s:I:o:b:chV", longopts, NULL)) != -1) {
                switch (c) {
                case 'g': o->group = optarg; break;
                case 'H': o->header = optarg; break;
                case 's': o->source = optarg; break;
                case 'I': o->header_include = optarg; break;
                case 'o': o->output_dir = optarg; break;
                case 'c': o->check = true; break;
                case 'b':
                        tracegen_add_backends(o, optarg);
                        break;
                case 'h':
                        tracegen_help();
                        exit(tracegen_stdout_done());
                case 'V':
                        printf("tracegen %s\n", TJ_VERSION_STRING);
                        exit(tracegen_stdout_done());
                default:
                        tracegen_option_error(c, argv[optind - 1], longopts);
                }
        }
        if (optind >= argc)
                tracegen_usage_error("no trace-events file given", NULL);
        if (!o->have_backend)
                o->backends = TE_BACKEND_TRACEJOURNAL;
        if (o->group && !tracegen_is_ident(o->group))
                tracegen_usage_error("--group must be a C identifier", o->group);
        /* the provider of the dtrace backend's probes and of the ust
         * backend's tracepoints, pasted as an event's name is */
        if (o->group && (o->backends & TE_BACKEND_DTRACE))
                why = tracegen_dtrace_macro(o->group);
        else if (o->group && (o->backends & TE_BACKEND_UST))
                why = te_parse_macro_name(o->group);
        if (why) {
                fprintf(stderr, "tracegen: --group '%s' %s: the %s backend's provider would "
                        "be named by its value\nTry 'tracegen --help' for more information.\n",
                        o->group, why, o->backends & TE_BACKEND_DTRACE ? "dtrace" : "ust");
                exit(TRACEGEN_EXIT_USAGE);
        }
        if (o->group && (o->backends & TE_BACKEND_UST) && te_parse_ust_name(o->group)) {
                fprintf(stderr, "tracegen: --group '%s' %s: the ust backend's provider would "
                        "be named by its value\nTry 'tracegen --help' for more information.\n",
                        o->group, te_parse_ust_name(o->group));
                exit(TRACEGEN_EXIT_USAGE);
        }
        if (o->check)
                return;
        if (!o->group)
                tracegen_usage_error("missing --group", NULL);
        /* an empty name is no file: --output-dir= wrote /trace-GROUP.h (its
         * DIR/NAME), --source= failed after the header was replaced, and
         * --header-include= gave '#include ""' */
        if (o->header && !*o->header)
                tracegen_usage_error("--header must not be empty", NULL);
        if (o->source && !*o->source)
                tracegen_usage_error("--source must not be empty", NULL);
        if (o->output_dir && !*o->output_dir)
                tracegen_usage_error("--output-dir must not be empty", NULL);
        if (o->header_include && !*o->header_include)
                tracegen_usage_error("--header-include must not be empty", NULL);
        if (!o->header && !o->source && !o->output_dir)
                tracegen_usage_error("nothing to write: give --header, --source or --output-dir",
                                     NULL);
        /* no header is written (its name is the default #include) */
        if (!o->header && (!o->output_dir || o->source) && (o->backends & TE_BACKEND_UST))
                tracegen_usage_error("the ust backend needs --header (or --output-dir without "
                                     "--source)", NULL);
        if (o->source && !o->header && !o->header_include)
                tracegen_usage_error("--source needs --header or --header-include", NULL);
        /* the source #includes the header (by its file name by default),
         * the header its ust provider header (the same name, '-ust.h') */
        if (o->source || (o->output_dir && !o->header)) {
                if (o->header_include)
                        tracegen_check_include("--header-include", o->header_include);
                else if (o->header)
                        tracegen_check_include("--header", tracegen_basename(o->header));
        }
        if (o->header && (o->backends & TE_BACKEND_UST))
                tracegen_check_include("--header", tracegen_basename(o->header));
}

/* DIR/NAME, or NAME alone when there is no DIR or NAME is absolute. */
static char *tracegen_path(const char *dir, const char *name, const char *group, const char *ext)
{
        char *p = NULL;
        int r;

        if (name && (!dir || name[0] == '/'))
                return strdup(name);
        if (name)
                r = asprintf(&p, "%s/%s", dir, name);
        else
                r = asprintf(&p, "%s/trace-%s%s", dir, group, ext);
        return r < 0 ? NULL : p;
}

/*
 * A regular file given twice, by one name or two, would have each of its
 * events reported as a duplicate of itself ("duplicate event 'foo' (first
 * defined at F:2)" at F:2): a usage error instead, exit 2.  A file that
 * cannot be stat()ed is left to tracegen_read() to report.
 */
static void tracegen_check_twice(char **files, int n)
{
        struct stat *st = calloc((size_t)(n > 0 ? n : 1), sizeof(*st));
        bool *reg = calloc((size_t)(n > 0 ? n : 1), sizeof(*reg));
        bool stdin_seen = false;

        if (!st || !reg)
                tracegen_nomem();
        for (int i = 0; i < n; i++) {
                bool is_stdin = strcmp(files[i], "-") == 0;

                /* standard input is read once: a second '-' read nothing */
                if (is_stdin && stdin_seen)
                        tracegen_usage_error("-: given twice", NULL);
                stdin_seen |= is_stdin;
                reg[i] = (is_stdin ? fstat(STDIN_FILENO, &st[i]) : stat(files[i], &st[i])) == 0 &&
                         S_ISREG(st[i].st_mode);
                for (int j = 0; reg[i] && j < i; j++) {
                        if (!reg[j] || st[i].st_dev != st[j].st_dev || st[i].st_ino != st[j].st_ino)
                                continue;
                        fputs("tracegen: ", stderr);
                        te_fputs_quoted(files[i], NULL, stderr);
                        if (strcmp(files[i], files[j]) == 0) {
                                fputs(": given twice", stderr);
                        } else {
                                fputs(": the same file as ", stderr);
                                te_fputs_quoted(files[j], NULL, stderr);
                        }
                        fputs("\nTry 'tracegen --help' for more information.\n", stderr);
                        exit(TRACEGEN_EXIT_USAGE);
                }
        }
        free(reg);
        free(st);
}

/* The real path of PATH's directory ("." when it names none), malloc'ed;
 * NULL when it cannot be resolved. */
static char *tracegen_dir_real(const char *path)
{
        const char *base = tracegen_basename(path);
        char *dir, *real;

        if (base == path)
                return realpath(".", NULL);
        dir = strndup(path, (size_t)(base - path));
        if (!dir)
                tracegen_nomem();
        real = realpath(dir, NULL);
        free(dir);
        return real;
}

/* Whether A and B name one regular file: the same inode when both exist
 * (a file that is no regular file, /dev/stdout or a pipe, is written into
 * directly, and two outputs may share it), else the same directory (by its
 * real path) and the same last component. */
static bool tracegen_same_file(const char *a, const char *b)
{
        struct stat sa, sb;
        char *da, *db;
        bool same;

        if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
                return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && S_ISREG(sa.st_mode);
        if (strcmp(tracegen_basename(a), tracegen_basename(b)) != 0)
                return false;
        da = tracegen_dir_real(a);
        db = tracegen_dir_real(b);
        same = da && db && strcmp(da, db) == 0;
        free(da);
        free(db);
        return same;
}

/* Whether PATH is the regular file standard input reads ('-' < t.h with
 * --header=t.h replaced the input with code, exit 0). */
static bool tracegen_is_stdin(const char *path)
{
        struct stat sp, si;

        return stat(path, &sp) == 0 && fstat(STDIN_FILENO, &si) == 0 && S_ISREG(sp.st_mode) &&
               sp.st_dev == si.st_dev && sp.st_ino == si.st_ino;
}

/*
 * Two outputs that are one file (--header=t.h --source=t.h: the source
 * replaced the header, which then included itself), or an output that is an
 * input (--header=in.events in.events: the input replaced by code), were
 * written, exit 0: a usage error instead, exit 2, nothing written.  ROLES
 * names each output as the message says it.
 */
static void tracegen_check_outputs(const struct tracegen_output *outs, const char *const *roles,
                                   size_t n, char **files, int nfiles)
{
        for (size_t i = 0; i < n; i++) {
                for (size_t j = 0; j < i; j++) {
                        if (!tracegen_same_file(outs[i].path, outs[j].path))
                                continue;
                        fputs("tracegen: ", stderr);
                        te_fputs_quoted(outs[i].path, NULL, stderr);
                        fprintf(stderr, ": both the %s and the %s\n", roles[j], roles[i]);
                        fputs("Try 'tracegen --help' for more information.\n", stderr);
                        exit(TRACEGEN_EXIT_USAGE);
                }
                for (int k = 0; k < nfiles; k++) {
                        if (strcmp(files[k], "-") == 0 ? !tracegen_is_stdin(outs[i].path) :
                            !tracegen_same_file(outs[i].path, files[k]))
                                continue;
                        fputs("tracegen: ", stderr);
                        te_fputs_quoted(files[k], NULL, stderr);
                        fprintf(stderr, ": an input, would be replaced by the %s\n", roles[i]);
                        fputs("Try 'tracegen --help' for more information.\n", stderr);
                        exit(TRACEGEN_EXIT_USAGE);
                }
        }
}

/* Read every input into LIST. Returns an exit status. */
static int tracegen_read(struct te_list *list, char **files, int n)
{
        int i, r, status = TRACEGEN_EXIT_OK;
        FILE *f;

        for (i = 0; i < n; i++) {
                bool is_stdin = strcmp(files[i], "-") == 0;

                f = is_stdin ? stdin : fopen(files[i], "re");
                if (!f) {
                        tracegen_file_error(files[i], errno);
                        return TRACEGEN_EXIT_IO;
                }
                r = te_parse_file(list, is_stdin ? "<stdin>" : files[i], f, stderr);
                if (!is_stdin)
                        fclose(f);
                if (r == -ENOMEM)
                        tracegen_nomem();
                if (r == -EINVAL) {
                        status = TRACEGEN_EXIT_INPUT;
                } else if (r < 0) {
                        tracegen_file_error(files[i], -r);
                        return TRACEGEN_EXIT_IO;
                }
        }
        return status;
}

/* "tracegen: FILE:LINE:COL: " for a message about an input. */
static void tracegen_input_error(const char *file, unsigned line, unsigned col)
{
        fputs("tracegen: ", stderr);
        te_fputs_quoted(file, NULL, stderr);
        fprintf(stderr, ":%u:%u: ", line, col);
}

/*
 * What the dtrace and ust backends cannot generate, refused as an input
 * error: the probe or tracepoint of an event named by a macro (<sys/sdt.h>
 * and <lttng/tracepoint.h> paste the name after expanding it: 'unix' gave
 * 'GROUP_1_semaphore', and an LTTng-UST event named '1'), and, with dtrace,
 * an argument named as the GROUP_EVENT_semaphore macro the probe is compiled
 * under (the probe recorded the semaphore in its place); with ust, an event
 * or an argument named by a macro of LTTng-UST's headers or with its prefix
 * (an event 'tracepoint' registered as GROUP:lttng_ust_tracepoint, an
 * argument 'tp_rcu_read_lock' did not compile), and a tracepoint name
 * longer than LTTng-UST takes (the provider did not compile).  GROUP may be NULL
 * (--check).  Returns an exit status.
 */
/* The longest tracepoint name, PROVIDER:EVENT, that LTTng-UST takes: its
 * LTTNG_UST_ABI_SYM_NAME_LEN (256) with the terminating NUL; the provider
 * asserts as much when it is compiled. */
#define TRACEGEN_UST_NAME_MAX 255

static int tracegen_check_probes(const struct te_list *list, const char *group,
                                 unsigned backends)
{
        bool dt = backends & TE_BACKEND_DTRACE, ust = backends & TE_BACKEND_UST;
        int status = TRACEGEN_EXIT_OK;
        size_t i;

        for (i = 0; i < list->n; i++) {
                const struct te_event *ev = &list->events[i];
                const char *why = dt ? tracegen_dtrace_macro(ev->name) :
                                  te_parse_macro_name(ev->name);
                unsigned j;

                /* the header includes the provider, so a 'disable' event's
                 * parameters are read under its macros too */
                for (j = 0; ust && j < ev->nargs; j++) {
                        const char *a = ev->args[j].name, *uwhy = te_parse_ust_name(a);

                        if (!uwhy)
                                continue;
                        tracegen_input_error(ev->file, ev->line, ev->args[j].col);
                        fprintf(stderr, "argument name '%s' %s, which the ust backend's "
                                "provider cannot take\n", a, uwhy);
                        status = TRACEGEN_EXIT_INPUT;
                }
                if (ev->disabled)
                        continue;       /* no probe */
                if (why) {
                        tracegen_input_error(ev->file, ev->line, ev->col);
                        fprintf(stderr, "event name '%s' %s: the %s would be named by its "
                                "value\n", ev->name, why,
                                dt ? "dtrace backend's probe" : "ust backend's tracepoint");
                        status = TRACEGEN_EXIT_INPUT;
                } else if (ust && te_parse_ust_name(ev->name)) {
                        tracegen_input_error(ev->file, ev->line, ev->col);
                        fprintf(stderr, "event name '%s' %s: the ust backend's tracepoint would "
                                "be named by its value\n", ev->name, te_parse_ust_name(ev->name));
                        status = TRACEGEN_EXIT_INPUT;
                } else if (ust && group &&
                           strlen(group) + 1 + strlen(ev->name) > TRACEGEN_UST_NAME_MAX) {
                        tracegen_input_error(ev->file, ev->line, ev->col);
                        fprintf(stderr, "event name '%s' is too long for the ust backend: "
                                "its tracepoint %s:EVENT would have %zu characters, "
                                "LTTng-UST takes %d at most\n", ev->name, group,
                                strlen(group) + 1 + strlen(ev->name), TRACEGEN_UST_NAME_MAX);
                        status = TRACEGEN_EXIT_INPUT;
                }
                for (j = 0; dt && group && j < ev->nargs; j++) {
                        const char *a = ev->args[j].name;
                        size_t g = strlen(group), n = strlen(ev->name);

                        if (strncmp(a, group, g) != 0 || a[g] != '_' ||
                            strncmp(a + g + 1, ev->name, n) != 0 ||
                            strcmp(a + g + 1 + n, "_semaphore") != 0)
                                continue;
                        tracegen_input_error(ev->file, ev->line, ev->args[j].col);
                        fprintf(stderr, "argument name '%s' is the dtrace backend's semaphore "
                                "macro of the event's probe (group '%s')\n", a, group);
                        status = TRACEGEN_EXIT_INPUT;
                }
        }
        return status;
}

/* Render one output into OUT->text. */
static void tracegen_render(const struct te_list *list, const struct te_emit_opts *eo,
                            bool header, struct tracegen_output *out)
{
        FILE *f = open_memstream(&out->text, &out->len);
        int r;

        if (!f)
                tracegen_nomem();
        r = header ? te_emit_header(list, eo, f) : te_emit_source(list, eo, f);
        if (fclose(f) != 0 || r < 0)
                tracegen_nomem();
}

/* The ust backend's provider header: PATH.h -> PATH-ust.h. */
static char *tracegen_ust_path(const char *header)
{
        size_t len = strlen(header);
        char *p;

        if (len > 2 && strcmp(header + len - 2, ".h") == 0)
                len -= 2;
        p = malloc(len + sizeof("-ust.h"));
        if (!p)
                tracegen_nomem();
        memcpy(p, header, len);
        strcpy(p + len, "-ust.h");
        return p;
}

static void tracegen_render_ust(const struct te_list *list, const struct te_emit_opts *eo,
                                struct tracegen_output *out)
{
        FILE *f = open_memstream(&out->text, &out->len);
        int r;

        if (!f)
                tracegen_nomem();
        r = te_emit_ust_header(list, eo, f);
        if (fclose(f) != 0 || r < 0)
                tracegen_nomem();
}

/* Write every output, or none. Returns an exit status. */
static int tracegen_write(struct tracegen_output *outs, size_t n)
{
        size_t i;
        int r = 0;

        for (i = 0; i < n && r == 0; i++) {
                r = te_out_prepare(outs[i].path, outs[i].text, outs[i].len, &outs[i].tmp,
                                   &outs[i].target);
                if (r < 0)
                        tracegen_file_error(outs[i].path, -r);
        }
        for (i = 0; i < n && r == 0; i++) {
                r = te_out_commit(outs[i].tmp, outs[i].target, outs[i].path, outs[i].text,
                                  outs[i].len);
                if (r < 0)
                        tracegen_file_error(outs[i].path, -r);
                else {
                        free(outs[i].tmp);
                        outs[i].tmp = NULL;
                }
        }
        for (i = 0; i < n; i++) {
                te_out_abort(outs[i].tmp);
                free(outs[i].target);
        }
        return r < 0 ? TRACEGEN_EXIT_IO : TRACEGEN_EXIT_OK;
}

int main(int argc, char **argv)
{
        struct tracegen_opts o = { 0 };
        struct tracegen_output outs[3] = { { 0 } };
        const char *roles[3];
        char *ust_path = NULL;
        struct te_emit_opts eo;
        struct te_list *list;
        size_t n = 0, i;
        int status;

        tracegen_parse_opts(argc, argv, &o);
        list = te_list_new();
        if (!list)
                tracegen_nomem();
        tracegen_check_twice(argv + optind, argc - optind);
        status = tracegen_read(list, argv + optind, argc - optind);
        if (status == TRACEGEN_EXIT_OK && (o.backends & (TE_BACKEND_DTRACE | TE_BACKEND_UST)))
                status = tracegen_check_probes(list, o.group, o.backends);
        if (status != TRACEGEN_EXIT_OK || o.check)
                goto out;

        eo = (struct te_emit_opts){ .group = o.group, .backends = o.backends };
        if (o.header || (o.output_dir && !o.source)) {
                outs[n].path = tracegen_path(o.output_dir, o.header, o.group, ".h");
                if (!outs[n].path)
                        tracegen_nomem();
                if (o.backends & TE_BACKEND_UST) {
                        ust_path = tracegen_ust_path(outs[n].path);
                        eo.ust_include = tracegen_basename(ust_path);
                }
                tracegen_render(list, &eo, true, &outs[n]);
                roles[n++] = "header";
        }
        if (ust_path) {
                outs[n].path = strdup(ust_path);
                if (!outs[n].path)
                        tracegen_nomem();
                tracegen_render_ust(list, &eo, &outs[n]);
                roles[n++] = "ust backend's header";
        }
        if (o.source || (o.output_dir && !o.header)) {
                /* with no header written, tracegen_parse_opts() saw to -I */
                eo.header_include = o.header_include;
                if (!eo.header_include)
                        eo.header_include = tracegen_basename(outs[0].path);
                outs[n].path = tracegen_path(o.output_dir, o.source, o.group, ".c");
                if (!outs[n].path)
                        tracegen_nomem();
                tracegen_render(list, &eo, false, &outs[n]);
                roles[n++] = "source";
        }
        tracegen_check_outputs(outs, roles, n, argv + optind, argc - optind);
        status = tracegen_write(outs, n);
out:
        for (i = 0; i < 3; i++) {
                free(outs[i].path);
                free(outs[i].text);
        }
        free(ust_path);
        te_list_free(list);
        return status;
}
