#!/bin/sh
# t-install.sh - make install / uninstall into a scratch DESTDIR, and a consumer
# built outside the tree with nothing but the installed tracegen and
# `pkg-config --cflags --libs tracejournal` (the Makefile snippet of README.md,
# extracted from it, building examples/blockdemo.c), then run against the
# installed shared library, into stderr and into the real journald.
# The tree is built into the scratch dir too (make B=...), so build/ is untouched.
. "$(dirname "$0")/lib/common.sh"

R=$T/root
VERSION=$(sed -n 's/^VERSION *= *//p' "$TOP/Makefile")
# No sanitizers here: the consumer is linked without them.
MK="make -s -C $TOP B=$T/build PREFIX=/usr DESTDIR=$R SANITIZE="
unset TJ_EVENTS TJ_EVENTS_FILE TJ_IDENTIFIER TJ_LOG_TIMESTAMP

rc=0
$MK -j2 install > "$T/install.log" 2>&1 || rc=$?
check_eq install-status 0 "$rc"
[ $rc -eq 0 ] || { sed 's/^/    /' "$T/install.log" | tail -20; exit 0; }

# Exactly these files, with these modes (l: symlink).
(cd "$R" && find . ! -type d | sort | while read -r f; do
        if [ -L "$f" ]; then echo "l $f -> $(readlink "$f")"; else echo "$(stat -c %a "$f") $f"; fi
done) > "$T/files"
cat > "$T/files.expected" <<'LIST'
755 ./usr/bin/tracegen
755 ./usr/bin/traceql
644 ./usr/include/tracejournal.h
644 ./usr/lib/libtracejournal.a
l ./usr/lib/libtracejournal.so -> libtracejournal.so.0
l ./usr/lib/libtracejournal.so.0 -> libtracejournal.so.VERSION
755 ./usr/lib/libtracejournal.so.VERSION
644 ./usr/lib/pkgconfig/tracejournal.pc
644 ./usr/share/bash-completion/completions/tracegen
644 ./usr/share/bash-completion/completions/traceql
644 ./usr/share/man/man1/tracegen.1
644 ./usr/share/man/man1/traceql.1
l ./usr/share/man/man3/tj_control_path.3 -> tracejournal.3
l ./usr/share/man/man3/tj_control_start.3 -> tracejournal.3
l ./usr/share/man/man3/tj_control_stop.3 -> tracejournal.3
l ./usr/share/man/man3/tj_enable.3 -> tracejournal.3
l ./usr/share/man/man3/tj_enable_file.3 -> tracejournal.3
l ./usr/share/man/man3/tj_enable_list.3 -> tracejournal.3
l ./usr/share/man/man3/tj_event_foreach.3 -> tracejournal.3
l ./usr/share/man/man3/tj_flush.3 -> tracejournal.3
l ./usr/share/man/man3/tj_get_stats.3 -> tracejournal.3
l ./usr/share/man/man3/tj_init.3 -> tracejournal.3
l ./usr/share/man/man3/tj_set_outputs.3 -> tracejournal.3
l ./usr/share/man/man3/tj_shutdown.3 -> tracejournal.3
l ./usr/share/man/man3/tj_trace_opt.3 -> tracejournal.3
644 ./usr/share/man/man3/tracejournal.3
644 ./usr/share/man/man5/trace-events.5
644 ./usr/share/man/man7/tracejournal.7
LIST
sed -i "s/VERSION/$VERSION/" "$T/files.expected"
check_file install-file-list "$T/files.expected" "$T/files"

# Every function of tracejournal.3's NAME section has its page: `man tj_init`
# found nothing until a whatis database was rebuilt.
if command -v man > /dev/null; then
        check_eq install-man-api-names "$R/usr/share/man/man3/tracejournal.3" \
                "$(for f in $(sed -n '/^\.Sh NAME/,/^\.Sh [^N]/s/^\.Nm \([^ ]*\).*/\1/p' "$TOP/man/tracejournal.3"); do
                        man -M "$R/usr/share/man" -w 3 "$f" 2>&1; done | sort -u)"
else
        skip install-man-api-names "man missing"
fi

# The real file is libtracejournal.so.VERSION, with the links of a shared
# library: libtracejournal.so.0, its SONAME (what programs load, the link
# ldconfig makes), and libtracejournal.so (what -ltracejournal finds).  It
# was installed as libtracejournal.so.0 itself.
check_eq install-soname "libtracejournal.so.0" \
        "$(readelf -d "$R/usr/lib/libtracejournal.so.$VERSION" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')"
check_eq install-so-links "$R/usr/lib/libtracejournal.so.$VERSION
$R/usr/lib/libtracejournal.so.$VERSION" \
        "$(readlink -f "$R/usr/lib/libtracejournal.so.0"; readlink -f "$R/usr/lib/libtracejournal.so")"
# The same three in the build tree.
check_eq install-so-links-tree "libtracejournal.so.0|libtracejournal.so.$VERSION|libtracejournal.so.0" \
        "$(readlink "$T/build/libtracejournal.so")|$(readlink "$T/build/libtracejournal.so.0")|$(
           readelf -d "$T/build/libtracejournal.so.$VERSION" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')"
# Only tj_ symbols are exported by the shared library.
check_eq install-exports-tj-only "" \
        "$(nm -D --defined-only "$R/usr/lib/libtracejournal.so.0" | awk '$2 != "A" { print $3 }' |
           grep -v '^tj_' | grep -v '^TJ_' || true)"
check_eq install-tracegen-runs "tracegen $(sed -n 's/^VERSION *= *//p' "$TOP/Makefile")" \
        "$("$R/usr/bin/tracegen" --version 2>&1 | head -1)"
# Both tools print the one VERSION of the Makefile.
check_eq install-traceql-version "traceql $(sed -n 's/^VERSION *= *//p' "$TOP/Makefile")" \
        "$("$R/usr/bin/traceql" --version 2>&1)"

# pkg-config, relocated into the DESTDIR.
export PKG_CONFIG_PATH="$R/usr/lib/pkgconfig"
check_eq install-pkgconfig "-I$R/usr/include -L$R/usr/lib -ltracejournal" \
        "$(pkg-config --define-prefix --cflags --libs tracejournal | sed 's/ *$//')"
check_eq install-pkgconfig-plain "-I/usr/include -L/usr/lib -ltracejournal" \
        "$(pkg-config --dont-define-prefix --keep-system-cflags --keep-system-libs --cflags --libs tracejournal |
           sed 's/ *$//')"

# The installed header alone, as the first line of a C or C++ file, strict:
# C99 and later, C++98 and later (the enum's trailing comma was an error
# under -std=c++98 -pedantic).
echo '#include <tracejournal.h>' > "$T/h.c"
cp "$T/h.c" "$T/h.cc"
for lang in c99 c11 c++98 c++11 c++17; do
        case $lang in c++*) cc=c++ src=$T/h.cc ;; *) cc=cc src=$T/h.c ;; esac
        rc=0
        $cc -std=$lang -Wall -Wextra -pedantic -Werror $(pkg-config --define-prefix --cflags tracejournal) \
                -c -o "$T/h.o" "$src" > "$T/h.log" 2>&1 || rc=$?
        check_eq "install-header-alone-$lang" "0|" "$rc|$(head -3 "$T/h.log")"
done

# The consumer: README's Makefile lines and the example's sources, nothing else.
C=$T/consumer
mkdir -p "$C"
# snippet NAME: the lines of README.md between <!-- NAME --> and <!-- /NAME -->
snippet() {
        sed -n "/^<!-- $1 -->\$/,/^<!-- \\/$1 -->\$/p" "$TOP/README.md" | sed '/^<!--/d; /^```/d'
}
snippet consumer-makefile > "$C/Makefile"
cp "$TOP/examples/blockdemo.c" "$TOP/examples/trace-events" "$C/"
rc=0
# A clean make: nothing inherited from a `make check` that runs this test.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL CFLAGS="-O2 -Wall -Wextra -Werror" make -s -C "$C" TRACEGEN="$R/usr/bin/tracegen" \
        PKG_CONFIG="pkg-config --define-prefix" > "$T/consumer.log" 2>&1 || rc=$?
check_eq install-consumer-builds 0 "$rc"
[ $rc -eq 0 ] || sed 's/^/    /' "$T/consumer.log" | tail -20
check_eq install-consumer-generated "trace.c trace.h" "$(cd "$C" && ls trace.c trace.h | tr '\n' ' ' | sed 's/ $//')"

if [ -x "$C/blockdemo" ]; then
        lib=$(LD_LIBRARY_PATH="$R/usr/lib" ldd "$C/blockdemo" | awk '$1 == "libtracejournal.so.0" { print $3 }')
        check_eq install-consumer-links-installed-lib "$R/usr/lib/libtracejournal.so.0" "$lib"
        rc=0
        LD_LIBRARY_PATH="$R/usr/lib" TJ_OUTPUT=log $RUN "$C/blockdemo" --threads 2 --requests 10 \
                --trace 'qemu_v*' > "$T/c.out" 2> "$T/c.err" || rc=$?
        check_eq install-consumer-runs "0|blockdemo: 2 devices, 2 threads, 10 requests (1 failed), 3 buffers never freed" \
                "$rc|$(cat "$T/c.out")"
        check_eq install-consumer-log "qemu_vfree 10
qemu_vmalloc 13" "$(awk '{ n[$1]++ } END { for (e in n) print e, n[e] }' "$T/c.err" | sort)"
        if have_journald; then
                LD_LIBRARY_PATH="$R/usr/lib" TJ_IDENTIFIER=$TJ_TEST_ID $RUN "$C/blockdemo" \
                        --threads 2 --requests 10 --trace 'blk_req_*' > /dev/null 2>&1 || true
                journalctl --sync 2>/dev/null || true
                i=0
                while n=$(journalctl -q "SYSLOG_IDENTIFIER=$TJ_TEST_ID" -o cat | wc -l) &&
                        [ "$n" -lt 21 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
                check_eq install-consumer-journal "10 blk_req_complete
1 blk_req_error
10 blk_req_submit" "$(journalctl -q "SYSLOG_IDENTIFIER=$TJ_TEST_ID" --output-fields=TRACE_EVENT -o cat | sort | uniq -c | sed 's/^ *//')"
        else
                fail install-consumer-journal "no journald socket"
        fi
else
        fail install-consumer-runs "consumer not built"
fi

# The meson and CMake snippets of README.md, with the same sources; the
# sysroot variable points pkg-config's -I/-L into the DESTDIR.
for tool in meson cmake; do
        if ! command -v $tool > /dev/null; then
                fail "install-consumer-$tool" "$tool not installed (packaging/install-deps.sh)"
                continue
        fi
        D=$T/$tool
        mkdir -p "$D/src"
        cp "$TOP/examples/blockdemo.c" "$TOP/examples/trace-events" "$D/src/"
        if [ $tool = meson ]; then
                snippet consumer-meson > "$D/src/meson.build"
                set -- sh -c "meson setup '$D/build' '$D/src' && meson compile -C '$D/build'"
        else
                snippet consumer-cmake > "$D/src/CMakeLists.txt"
                set -- sh -c "cmake -S '$D/src' -B '$D/build' && cmake --build '$D/build'"
        fi
        rc=0
        env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH="$R/usr/bin:$PATH" \
                PKG_CONFIG_SYSROOT_DIR="$R" "$@" > "$T/$tool.log" 2>&1 || rc=$?
        out=$(LD_LIBRARY_PATH="$R/usr/lib" TJ_OUTPUT=log "$D/build/blockdemo" --threads 1 \
                --requests 3 --trace blk_req_complete 2>&1 | sort) || rc=$?
        check_eq "install-consumer-$tool" "0|blk_req_complete req ret 0
blk_req_complete req ret 0
blk_req_complete req ret 0
blockdemo: 2 devices, 1 threads, 3 requests (0 failed), 3 buffers never freed" \
                "$rc|$(echo "$out" | sed 's/req 0x[0-9a-f]*/req/')"
        [ $rc -eq 0 ] || sed 's/^/    /' "$T/$tool.log" | tail -20
done

# uninstall mirrors install: no file or symlink is left.
rc=0
$MK uninstall > "$T/uninstall.log" 2>&1 || rc=$?
check_eq uninstall-status 0 "$rc"
check_eq uninstall-leaves-nothing "" "$(cd "$R" && find . ! -type d | sort)"

# LIBDIR and MANDIR elsewhere (a multiarch or lib64 layout): files follow, the
# .pc file says where, and uninstall still removes everything.
R2=$T/root2
MK2="make -s -C $TOP B=$T/build PREFIX=/usr LIBDIR=/usr/lib64 MANDIR=/usr/man DESTDIR=$R2 SANITIZE="
rc=0
$MK2 install > "$T/install2.log" 2>&1 || rc=$?
check_eq install-libdir-status 0 "$rc"
check_eq install-libdir-files "./usr/lib64/libtracejournal.a
./usr/lib64/libtracejournal.so
./usr/lib64/libtracejournal.so.0
./usr/lib64/libtracejournal.so.$VERSION
./usr/lib64/pkgconfig/tracejournal.pc
./usr/man/man1/tracegen.1" \
        "$(cd "$R2" && find ./usr/lib64 ./usr/man/man1/tracegen.1 ! -type d 2>/dev/null | sort)"
check_eq install-libdir-pc "libdir=\${prefix}/lib64" "$(grep '^libdir=' "$R2/usr/lib64/pkgconfig/tracejournal.pc")"
rc=0
$MK2 uninstall > "$T/uninstall2.log" 2>&1 || rc=$?
check_eq uninstall-libdir-leaves-nothing "0|" "$rc|$(cd "$R2" && find . ! -type d | sort)"

# A PREFIX with a space: the .pc file still says its directories relative to
# ${prefix} (so pkg-config --define-prefix relocates them), and uninstall
# finds every file.
R4=$T/root4
rc=0
make -s -C "$TOP" B="$T/build" PREFIX="/opt/trace journal" DESTDIR="$R4" SANITIZE= install \
        > "$T/install4.log" 2>&1 || rc=$?
check_eq install-prefix-space-pc "0|prefix=/opt/trace journal
libdir=\${prefix}/lib
includedir=\${prefix}/include" \
        "$rc|$(head -3 "$R4/opt/trace journal/lib/pkgconfig/tracejournal.pc" 2>&1)"
rc=0
make -s -C "$TOP" B="$T/build" PREFIX="/opt/trace journal" DESTDIR="$R4" SANITIZE= uninstall \
        > "$T/uninstall4.log" 2>&1 || rc=$?
check_eq uninstall-prefix-space-leaves-nothing "0|" "$rc|$(cd "$R4" && find . ! -type d | sort)"

# Into the running system (no DESTDIR) as root, install and uninstall refresh
# the dynamic linker's cache (LDCONFIG, here a stand-in that records its
# runs): without it a program linked with -ltracejournal does not start
# ("libtracejournal.so.0: cannot open shared object file") until somebody
# runs ldconfig.  A DESTDIR install (packages) leaves the cache alone.
cat > "$T/ldconfig" <<SH
#!/bin/sh
echo ldconfig "\$@" >> "$T/ldconfig.log"
SH
chmod +x "$T/ldconfig"
: > "$T/ldconfig.log"
$MK LDCONFIG="$T/ldconfig" install > "$T/install3.log" 2>&1
$MK LDCONFIG="$T/ldconfig" uninstall >> "$T/install3.log" 2>&1
check_eq install-destdir-no-ldconfig "" "$(cat "$T/ldconfig.log")"
if [ "$(id -u)" = 0 ]; then
        L=$T/live
        MK3="make -s -C $TOP B=$T/build PREFIX=$L SANITIZE= LDCONFIG=$T/ldconfig"
        rc=0
        { $MK3 install && $MK3 uninstall; } > "$T/install3.log" 2>&1 || rc=$?
        check_eq install-live-ldconfig "0|ldconfig
ldconfig" "$rc|$(cat "$T/ldconfig.log")"
else
        skip install-live-ldconfig "needs root"
fi
