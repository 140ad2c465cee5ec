#!/bin/sh
# t-rpm.sh - packaging/tracejournal.spec: rpmbuild -bb builds tracejournal,
# tracejournal-libs and tracejournal-devel from a tarball of the tree, with the
# expected files and provides.  On Debian rpmbuild runs with --nodeps (the
# build dependencies are dpkg packages, invisible to rpm).
. "$(dirname "$0")/lib/common.sh"

if ! command -v rpmbuild > /dev/null; then
        skip rpm "rpmbuild missing (the rpm package, packaging/install-deps.sh)"; exit 0; fi
SPEC=$TOP/packaging/tracejournal.spec
VERSION=$(sed -n 's/^VERSION *= *//p' "$TOP/Makefile")
check_eq rpm-version-matches-makefile "$VERSION" "$(sed -n 's/^Version: *//p' "$SPEC")"

R=$T/rpm
mkdir -p "$R/SOURCES"
tar -C "$TOP" --exclude=./build --exclude=./.git --transform "s|^\\.|tracejournal-$VERSION|" \
        -czf "$R/SOURCES/tracejournal-$VERSION.tar.gz" .
nodeps=
command -v dpkg > /dev/null && nodeps=--nodeps
rc=0
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE -u CFLAGS -u LDFLAGS HOME="$T" \
        rpmbuild -bb --noclean $nodeps --define "_topdir $R" "$SPEC" > "$T/build.log" 2>&1 || rc=$?
check_eq rpm-build "0" "$rc"
if [ $rc -ne 0 ]; then sed 's/^/    /' "$T/build.log" | tail -30; exit 0; fi

LIBDIR=$(rpm --eval '%{_libdir}')
for p in tracejournal tracejournal-libs tracejournal-devel; do
        f=$(ls "$R"/RPMS/*/"$p-$VERSION"-*.rpm 2>/dev/null | head -1)
        echo "[$p]"
        [ -n "$f" ] && rpm -qpl "$f" 2>/dev/null | grep -v '^/usr/lib/\.build-id' |
                sed -e "s|^$LIBDIR/|@LIBDIR@/|" -e 's|\.gz$||' \
                    -e 's|^/usr/share/doc/tracejournal[^/]*|@DOCDIR@|' | grep -vx @DOCDIR@ | sort
done > "$T/contents"
cat > "$T/contents.expected" <<'LIST'
[tracejournal]
/usr/bin/tracegen
/usr/bin/traceql
/usr/share/bash-completion/completions/tracegen
/usr/share/bash-completion/completions/traceql
/usr/share/man/man1/tracegen.1
/usr/share/man/man1/traceql.1
/usr/share/man/man5/trace-events.5
@DOCDIR@/README.md
[tracejournal-libs]
@LIBDIR@/libtracejournal.so.0
[tracejournal-devel]
/usr/include/tracejournal.h
/usr/share/man/man3/tracejournal.3
/usr/share/man/man7/tracejournal.7
@LIBDIR@/libtracejournal.a
@LIBDIR@/libtracejournal.so
@LIBDIR@/pkgconfig/tracejournal.pc
LIST
check_file rpm-contents "$T/contents.expected" "$T/contents"
check_eq rpm-libs-provides-soname "yes" "$(rpm -qp --provides "$R"/RPMS/*/tracejournal-libs-"$VERSION"-*.rpm 2>/dev/null |
        grep -qx 'libtracejournal.so.0()(64bit)' && echo yes)"
check_eq rpm-devel-provides-pkgconfig "pkgconfig(tracejournal) = $VERSION" \
        "$(rpm -qp --provides "$R"/RPMS/*/tracejournal-devel-"$VERSION"-*.rpm 2>/dev/null | grep '^pkgconfig(')"
# The installed tree (kept by --noclean): the .pc file points at %{_libdir}.
check_eq rpm-devel-pc-libdir "libdir=\${prefix}/${LIBDIR#/usr/}" \
        "$(cat "$R"/BUILDROOT/*"$LIBDIR/pkgconfig/tracejournal.pc" 2>&1 | grep '^libdir=')"
