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
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE -u CC -u CFLAGS -u LDFLAGS HOME="$T" \
        rpmbuild -bb --noclean $nodeps --define "_topdir $R" "$SPEC" > "$T/build.log" 2>&1 || rc=$?
check_eq rpm-build "0" "$rc"
if [ $rc -ne 0 ]; then sed 's/^/    /' "$T/build.log" | tail -30; exit 0; fi
check_eq rpm-build-no-werror "0" "$(grep -cE -e '-Werror( |$)' "$T/build.log" || true)"

# Contents: exactly what `make install` put into the build root (kept by
# --noclean), split as tests/lib/pkgsplit.awk says, with the main files there.
LIBDIR=$(rpm --eval '%{_libdir}')
kind() { case $1 in tracejournal-libs) echo lib ;; tracejournal-devel) echo dev ;; *) echo tools ;; esac; }
for p in tracejournal tracejournal-libs tracejournal-devel; do
        f=$(ls "$R"/RPMS/*/"$p-$VERSION"-*.rpm 2>/dev/null | head -1)
        [ -n "$f" ] || { echo "missing $p"; continue; }
        rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$f" 2>/dev/null | awk '$1 !~ /^d/ { print $2 }' |
                grep -v -e '^/usr/lib/\.build-id/' -e '^/usr/share/doc/' | sed 's|\.gz$||' |
                sed "s|^|$(kind "$p") |"
done | sort > "$T/contents"
(cd "$R"/BUILDROOT/* && find . ! -type d) | sed -e 's|^\.||' -e 's|\.gz$||' |
        grep -v -e '^/usr/lib/\.build-id/' -e '^/usr/share/doc/' | awk -f "$TOP/tests/lib/pkgsplit.awk" |
        sort > "$T/contents.expected"
check_file rpm-contents "$T/contents.expected" "$T/contents"
missing=
for f in "lib $LIBDIR/libtracejournal.so.0" "dev $LIBDIR/libtracejournal.so" \
        "dev $LIBDIR/libtracejournal.a" "dev /usr/include/tracejournal.h" \
        "dev $LIBDIR/pkgconfig/tracejournal.pc" "dev /usr/share/man/man3/tracejournal.3" \
        "dev /usr/share/man/man3/tj_init.3" \
        "tools /usr/bin/traceql" "tools /usr/bin/tracegen" "tools /usr/share/man/man1/traceql.1" \
        "tools /usr/share/man/man7/tracejournal.7" \
        "tools /usr/share/bash-completion/completions/traceql"; do
        grep -qxF "$f" "$T/contents" || missing="$missing [$f]"
done
check_eq rpm-contents-main-files "" "$missing"
check_eq rpm-tools-doc "/usr/share/doc/tracejournal-$VERSION/README.md" \
        "$(rpm -qpd "$R"/RPMS/*/tracejournal-"$VERSION"-*.rpm 2>/dev/null | grep '^/usr/share/doc/' |
           sed "s|tracejournal/|tracejournal-$VERSION/|")"
check_eq rpm-libs-provides-soname "yes" "$(rpm -qp --provides "$R"/RPMS/*/tracejournal-libs-"$VERSION"-*.rpm 2>/dev/null |
        grep -qx 'libtracejournal.so.0()(64bit)' && echo yes)"
# ldconfig after the library is installed and after it is removed (rpm
# here has no %ldconfig_scriptlets: the spec's own).  There were none.
check_eq rpm-libs-ldconfig "postinstall program: /sbin/ldconfig|postuninstall program: /sbin/ldconfig" \
        "$(rpm -qp --scripts "$R"/RPMS/*/tracejournal-libs-"$VERSION"-*.rpm 2>/dev/null | paste -sd '|')"
check_eq rpm-devel-provides-pkgconfig "pkgconfig(tracejournal) = $VERSION" \
        "$(rpm -qp --provides "$R"/RPMS/*/tracejournal-devel-"$VERSION"-*.rpm 2>/dev/null | grep '^pkgconfig(')"
# The installed tree (kept by --noclean): the .pc file points at %{_libdir}.
check_eq rpm-devel-pc-libdir "libdir=\${prefix}/${LIBDIR#/usr/}" \
        "$(cat "$R"/BUILDROOT/*"$LIBDIR/pkgconfig/tracejournal.pc" 2>&1 | grep '^libdir=')"
