#!/bin/sh
# install-deps.sh - install the Debian packages that building, testing, the
# demo and CI of tracejournal need (Debian 12; other Debian-based systems with
# the same package names work too).
#
#   packaging/install-deps.sh            apt-get update, then apt-get install -y
#                                        every package below (needs root)
#   packaging/install-deps.sh --missing  print the packages not installed yet,
#                                        one line, nothing when all are there
#   packaging/install-deps.sh --command  print the exact apt-get command that
#                                        installs the missing ones
#   packaging/install-deps.sh --list     print the whole list
#   packaging/install-deps.sh --ensure   nothing when all are installed; else
#                                        install them as root, or print the
#                                        apt-get command and fail (make check)
#
# --missing, --command and --ensure need dpkg-query, the installation
# apt-get: without them (another distribution) it says so, lists the
# packages whose equivalents to install, and fails.
#
# Keep the list in step with what the Makefile, tests/, examples/demo.sh,
# bench/ and .ci/run call.
set -eu

PACKAGES="
gcc clang make pkg-config binutils
libsystemd-dev libpcre2-dev libsqlite3-dev
systemd systemd-journal-remote procps
mandoc rsyslog valgrind python3 sqlite3 lnav
libclang-rt-14-dev
meson ninja-build cmake
build-essential debhelper dpkg-dev lintian fakeroot rpm
git ca-certificates
systemtap-sdt-dev liblttng-ust-dev lttng-tools babeltrace2 bpftrace util-linux
"

# need_dpkg: the list is Debian's, and dpkg-query says which are installed:
# without it (another distribution) every package looked missing, and
# --ensure printed an apt-get command for all of them, or as root ran
# apt-get, which failed with "apt-get: not found" under make check.
need_dpkg() {
        command -v dpkg-query > /dev/null && return 0
        echo "install-deps.sh: dpkg-query not found: the packages are Debian's, and whether they are installed cannot be checked here" >&2
        echo "install-deps.sh: install the equivalents of: $(echo $PACKAGES)" >&2
        echo "install-deps.sh: then run 'make check-run' (make check without this step)" >&2
        exit 1
}

missing() {
        out=
        for p in $PACKAGES; do
                s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
                [ "$s" = installed ] || out="$out${out:+ }$p"
        done
        echo "$out"
}

case "${1:-}" in
--missing)
        need_dpkg
        m=$(missing)
        [ -z "$m" ] || echo "$m" ;;
--command)
        need_dpkg
        m=$(missing)
        [ -z "$m" ] || echo "apt-get update && apt-get install -y $m" ;;
--list)
        echo $PACKAGES ;;
--ensure)
        need_dpkg
        m=$(missing)
        [ -n "$m" ] || exit 0
        if [ "$(id -u)" != 0 ]; then
                echo "install-deps.sh: missing packages: $m" >&2
                echo "install-deps.sh: run as root, or first: sudo apt-get update && sudo apt-get install -y $m" >&2
                exit 1
        fi
        exec sh "$0" ;;
"")
        if ! command -v apt-get > /dev/null; then
                echo "install-deps.sh: apt-get not found: the packages are Debian's; install the equivalents of: $(echo $PACKAGES)" >&2
                exit 1
        fi
        if [ "$(id -u)" != 0 ]; then
                echo "install-deps.sh: must run as root; or run:" >&2
                echo "  sudo apt-get update && sudo apt-get install -y $(echo $PACKAGES)" >&2
                exit 1
        fi
        export DEBIAN_FRONTEND=noninteractive
        apt-get update
        # shellcheck disable=SC2086
        apt-get install -y --no-install-recommends $PACKAGES ;;
*)
        echo "usage: $0 [--missing|--command|--list|--ensure]" >&2
        exit 2 ;;
esac
