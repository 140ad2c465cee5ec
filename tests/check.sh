#!/bin/sh
# tests/check.sh - the README's test command: `make check` on a fresh Debian
# 12, where make itself may be missing (a debootstrap of bookworm, minbase or
# default, has none).  Installs what is missing first, as root
# (packaging/install-deps.sh --ensure; not root: prints the apt-get command
# and fails), then runs make check, whose last line is the summary
# "N passed, N failed, N skipped".
set -e
cd "$(dirname "$0")/.."
sh packaging/install-deps.sh --ensure
exec make check
