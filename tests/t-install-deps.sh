#!/bin/sh
# t-install-deps.sh - packaging/install-deps.sh, which make check runs first
# (--ensure), on a machine without dpkg-query or apt-get (PATH holds only
# sh and id, or stand-ins): it says what it needs and fails, and it never
# installs anything here.  With a stand-in dpkg-query it says which
# packages are missing.
. "$(dirname "$0")/lib/common.sh"

S=$TOP/packaging/install-deps.sh
SH=$(command -v sh)
mkdir -p "$T/bin" "$T/user"
ln -s "$SH" "$T/bin/sh"
ln -s "$(command -v id)" "$T/bin/id"
# a user who is not root: id -u says 1000
ln -s "$SH" "$T/user/sh"
printf '#!%s\necho 1000\n' "$SH" > "$T/user/id"
chmod +x "$T/user/id"
list=$(sh "$S" --list)

# ideps NAME STATUS FIRST-LINE-OF-STDERR BIN ARG...: run install-deps.sh with
# PATH=BIN; nothing on stdout
ideps() {
        name=$1 st=$2 want=$3 bin=$4
        shift 4
        rc=0
        PATH=$bin "$SH" "$S" "$@" > "$T/out" 2> "$T/err" || rc=$?
        check_eq "$name" "$st|$want|" "$rc|$(head -1 "$T/err")|$(cat "$T/out")"
}

# Without dpkg-query every package looked missing: --ensure printed an
# apt-get command for all of them (not root), or ran apt-get as root
# ("apt-get: not found", exit 127, under make check).
nodpkg="install-deps.sh: dpkg-query not found: the packages are Debian's, and whether they are installed cannot be checked here"
ideps deps-ensure-no-dpkg 1 "$nodpkg" "$T/user" --ensure
check_eq deps-ensure-no-dpkg-says "install-deps.sh: install the equivalents of: $list
install-deps.sh: then run 'make check-run' (make check without this step)" "$(sed 1d "$T/err")"
ideps deps-ensure-no-dpkg-root 1 "$nodpkg" "$T/bin" --ensure
ideps deps-missing-no-dpkg 1 "$nodpkg" "$T/user" --missing
ideps deps-command-no-dpkg 1 "$nodpkg" "$T/user" --command
ideps deps-install-no-apt 1 "install-deps.sh: apt-get not found: the packages are Debian's; install the equivalents of: $list" \
        "$T/bin"
check_eq deps-list "$list" "$(PATH=$T/user "$SH" "$S" --list)"

# A stand-in dpkg-query: every package installed but lnav.
printf '#!%s\n[ "$3" = lnav ] && exit 1\nprintf installed\n' "$SH" > "$T/user/dpkg-query"
chmod +x "$T/user/dpkg-query"
check_eq deps-missing-one-out "lnav" "$(PATH=$T/user "$SH" "$S" --missing)"
ideps deps-ensure-one 1 "install-deps.sh: missing packages: lnav" "$T/user" --ensure
printf '#!%s\nprintf installed\n' "$SH" > "$T/user/dpkg-query"
ideps deps-ensure-all 0 "" "$T/user" --ensure
