#!/bin/sh
# t-deb.sh - packaging/debian: dpkg-buildpackage -us -uc -b builds
# libtracejournal0, libtracejournal-dev and tracejournal-tools from a copy of
# the tree (packaging/debian copied to its ./debian; this tree stays clean),
# with the expected contents and no lintian error; then the packages are
# installed on this machine with dpkg -i, the installed traceql and tracegen
# run, the example is built against the installed files with nothing but
# tracegen and pkg-config, and the packages are purged again, also when a
# check fails.  Needs root and the Debian tools (packaging/install-deps.sh).
. "$(dirname "$0")/lib/common.sh"

PKGS="libtracejournal0 libtracejournal-dev tracejournal-tools"
for c in dpkg-buildpackage dh lintian fakeroot; do
        if ! command -v $c > /dev/null; then
                skip deb "$c missing (packaging/install-deps.sh)"; exit 0; fi
done
VERSION=$(sed -n 's/^VERSION *= *//p' "$TOP/Makefile")
DEBVER=$(sed -n '1s/^tracejournal (\([^)]*\)).*/\1/p' "$TOP/packaging/debian/changelog")
check_eq deb-version-matches-makefile "$VERSION" "${DEBVER%-*}"

# Build from a copy: tree without build/ and .git, debian/ where
# dpkg-buildpackage looks for it.
S=$T/src/tracejournal-$VERSION
mkdir -p "$S"
tar -C "$TOP" --exclude=./build --exclude=./.git -cf - . | tar -C "$S" -xf -
cp -R "$TOP/packaging/debian" "$S/debian"
rc=0
(cd "$S" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE -u CC -u CFLAGS -u LDFLAGS \
        DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=2" \
        dpkg-buildpackage -us -uc -b) > "$T/build.log" 2>&1 || rc=$?
check_eq deb-build "0" "$rc"
if [ $rc -ne 0 ]; then sed 's/^/    /' "$T/build.log" | tail -30; exit 0; fi
# Warnings do not fail a package build; the host's binutils link it.
check_eq deb-build-no-werror "0" "$(grep -cE -e '-Werror( |$)' "$T/build.log" || true)"
check_eq deb-build-host-objcopy "1" "$(grep -c "^$(dpkg-architecture -qDEB_HOST_GNU_TYPE)-objcopy --localize-hidden" "$T/build.log" || true)"
debs=
for p in $PKGS; do
        d=$T/src/${p}_${DEBVER}_$(dpkg --print-architecture).deb
        [ -f "$d" ] && debs="$debs $d"
done
check_eq deb-packages-built "3" "$(echo $debs | wc -w)"

# Contents (directories and /usr/share/doc left out, man pages unzipped):
# exactly what `make install` put into debian/tmp, split as
# tests/lib/pkgsplit.awk says, with the main files certainly there.
kind() { case $1 in libtracejournal0) echo lib ;; libtracejournal-dev) echo dev ;; *) echo tools ;; esac; }
for d in $debs; do
        p=$(basename "$d"); p=${p%%_*}
        dpkg-deb -c "$d" | awk '$1 !~ /^d/ { print $6 }' | sed -e 's|^\.||' -e 's|\.gz$||' |
                grep -v '^/usr/share/doc/' | sed "s|^|$(kind "$p") |"
done | sort > "$T/contents"
(cd "$S/debian/tmp" && find . ! -type d) | sed 's|^\.||' | awk -f "$TOP/tests/lib/pkgsplit.awk" |
        sort > "$T/contents.expected"
check_file deb-contents "$T/contents.expected" "$T/contents"
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
missing=
for f in "lib /usr/lib/$MA/libtracejournal.so.0" "dev /usr/lib/$MA/libtracejournal.so" \
        "dev /usr/lib/$MA/libtracejournal.a" "dev /usr/include/tracejournal.h" \
        "dev /usr/lib/$MA/pkgconfig/tracejournal.pc" "dev /usr/share/man/man3/tracejournal.3" \
        "dev /usr/share/man/man3/tj_init.3" \
        "tools /usr/bin/traceql" "tools /usr/bin/tracegen" "tools /usr/share/man/man1/traceql.1" \
        "tools /usr/share/man/man7/tracejournal.7" \
        "tools /usr/share/bash-completion/completions/traceql"; do
        grep -qxF "$f" "$T/contents" || missing="$missing [$f]"
done
check_eq deb-contents-main-files "" "$missing"
check_eq deb-shlibs "libtracejournal 0 libtracejournal0 (>= $VERSION)" \
        "$(dpkg-deb -I "$T/src/libtracejournal0_${DEBVER}_$(dpkg --print-architecture).deb" shlibs)"

# lintian: no error (E:) tags; warnings are printed for the record.  Its
# temporary files go under $T: it leaves some behind (mldbm-elf-*).
mkdir "$T/lintian-tmp"
# shellcheck disable=SC2086
TMPDIR="$T/lintian-tmp" lintian --tag-display-limit 0 $debs > "$T/lintian.log" 2>&1 || true
grep '^[WE]: ' "$T/lintian.log" | sed 's/^/    /' || true
check_eq deb-lintian-no-errors "" "$(grep '^E: ' "$T/lintian.log" || true)"

# Install on this machine, as CI does (root), one test run at a time.
if [ "$(id -u)" != 0 ]; then
        skip deb-install "needs root to dpkg -i"; exit 0; fi
for p in $PKGS; do
        s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
        if [ -n "$s" ] && [ "$s" != not-installed ] && [ "$s" != config-files ]; then
                skip deb-install "$p is already installed here ($s); not touching it"; exit 0
        fi
done
lock=/run/lock/tracejournal-t-deb.lock
[ -d /run/lock ] || lock=/tmp/tracejournal-t-deb.lock
exec 9> "$lock"
if command -v flock > /dev/null; then flock 9; fi
cleanup() {
        # shellcheck disable=SC2086
        dpkg --purge $PKGS > /dev/null 2>&1 || true
        common_exit
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

rc=0
# shellcheck disable=SC2086
dpkg -i $debs > "$T/install.log" 2>&1 || rc=$?
check_eq deb-install "0" "$rc"
[ $rc -eq 0 ] || sed 's/^/    /' "$T/install.log" | tail -20
check_eq deb-installed-versions "$VERSION|traceql $VERSION|tracegen $VERSION" \
        "$(dpkg-query -W -f='${Version}' tracejournal-tools | sed 's/-[^-]*$//')|$(
           /usr/bin/traceql --version 2>&1)|$(/usr/bin/tracegen --version 2>&1 | head -1)"
check_eq deb-completion "complete -F _traceql traceql" \
        "$(bash -c '. /usr/share/bash-completion/completions/traceql && complete -p traceql' 2>&1)"

# The example, built against the installed package only.
C=$T/consumer
mkdir -p "$C"
cp "$TOP/examples/blockdemo.c" "$TOP/examples/trace-events" "$C/"
rc=0
(cd "$C" && env -u PKG_CONFIG_PATH -u PKG_CONFIG_SYSROOT_DIR sh -c '
        /usr/bin/tracegen --group=blockdemo --header=trace.h --source=trace.c trace-events &&
        cc -std=gnu11 -O2 -Wall -Wextra -Werror -I. -o blockdemo blockdemo.c trace.c \
                $(pkg-config --cflags --libs tracejournal)') > "$T/consumer.log" 2>&1 || rc=$?
check_eq deb-consumer-builds "0" "$rc"
[ $rc -eq 0 ] || sed 's/^/    /' "$T/consumer.log" | tail -20
if [ -x "$C/blockdemo" ]; then
        # (/lib is /usr/lib on a merged-/usr system: compare real paths)
        lib=$(env -u LD_LIBRARY_PATH ldd "$C/blockdemo" | awk '$1 == "libtracejournal.so.0" { print $3 }')
        check_eq deb-consumer-uses-installed-lib "$(readlink -f "/usr/lib/$MA/libtracejournal.so.0")" \
                "$(readlink -f "${lib:-none}")"
        out=$(env -u LD_LIBRARY_PATH TJ_OUTPUT=log "$C/blockdemo" --threads 1 --requests 3 \
                --trace blk_req_complete 2>&1 | sed 's/req 0x[0-9a-f]*/req/' | sort) || true
        check_eq deb-consumer-runs "blk_req_complete req ret 0
blk_req_complete req ret 0
blk_req_complete req ret 0
blockdemo: 2 devices, 1 threads, 3 requests (0 failed), 3 buffers never freed" "$out"
else
        fail deb-consumer-runs "consumer not built"
fi

# Remove them again: nothing of them is left.
rc=0
# shellcheck disable=SC2086
dpkg --purge $PKGS > "$T/purge.log" 2>&1 || rc=$?
left=
for p in $PKGS; do
        s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
        [ -z "$s" ] || [ "$s" = not-installed ] || left="$left $p:$s"
done
check_eq deb-purge "0||absent" "$rc|$left|$(
        [ -e /usr/bin/traceql ] || [ -e "/usr/lib/$MA/libtracejournal.so.0" ] ||
        [ -e /usr/include/tracejournal.h ] && echo present || echo absent)"
