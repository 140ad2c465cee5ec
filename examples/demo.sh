#!/bin/sh
# demo.sh - `make demo`: from a fresh Debian 12 machine to traced events in the
# journal and SQL answers about them, in one command.
#
# Steps: install the missing Debian packages (as root, through
# packaging/install-deps.sh; otherwise print the exact apt-get command and
# stop), start a journald where none runs (tests/lib/journald.sh; it is left
# running so the entries stay queryable), build, run the example program
# build/examples/blockdemo with every event enabled, show this run's entries
# with journalctl (matched on _PID=) and every field of one entry, and, when
# build/traceql exists, import the run into SQLite and query it.
# Idempotent: run it as often as you like.  DEMO_THREADS / DEMO_REQUESTS size
# the run.
set -eu
cd "$(dirname "$0")/.."
TOP=$(pwd)
MAKE=${MAKE:-make}
THREADS=${DEMO_THREADS:-4}
REQUESTS=${DEMO_REQUESTS:-200}
DEMO_DIR=$TOP/build/demo

step() { printf '\n==> %s\n' "$*"; }

step "Debian packages"
missing=$(sh packaging/install-deps.sh --missing)
if [ -n "$missing" ]; then
        if [ "$(id -u)" = 0 ]; then
                sh packaging/install-deps.sh
        else
                echo "demo: missing packages: $missing"
                echo "demo: run 'make demo' as root, or install them first with:"
                echo "  sudo $(sh packaging/install-deps.sh --command | sed 's/&& apt-get/\&\& sudo apt-get/')"
                exit 1
        fi
else
        echo "all installed"
fi

step "journald"
if sh tests/lib/journald.sh status; then
        echo "journald is running"
else
        sh tests/lib/journald.sh start
        echo "started journald (left running; tests/lib/journald.sh stop ends it)"
fi

step "build"
$MAKE -s -j2 all examples

step "run: build/examples/blockdemo --threads $THREADS --requests $REQUESTS --trace '*'"
mkdir -p "$DEMO_DIR"
start=$(date +%s)
unset TJ_IDENTIFIER TJ_EVENTS TJ_EVENTS_FILE TJ_QUIET
TJ_OUTPUT=journald build/examples/blockdemo --threads "$THREADS" --requests "$REQUESTS" \
        --trace '*' --stats 2> "$DEMO_DIR/stderr" &
pid=$!
wait "$pid" || { cat "$DEMO_DIR/stderr" >&2; echo "demo: blockdemo failed" >&2; exit 1; }
cat "$DEMO_DIR/stderr"
written=$(sed -n 's/.*written \([0-9]*\),.*/\1/p' "$DEMO_DIR/stderr")

# journald stores entries asynchronously: ask it to catch up, then wait until
# all of this run's entries are readable.
journalctl --sync 2>/dev/null || true
i=0
while n=$(journalctl -q -t qemu-trace "_PID=$pid" -o cat | wc -l) &&
        [ "$n" -lt "${written:-0}" ] && [ $i -lt 100 ]; do
        sleep 0.1; i=$((i + 1))
done

step "journalctl -t qemu-trace _PID=$pid   ($n entries; first 15)"
journalctl -q --no-pager -t qemu-trace "_PID=$pid" -o short-precise | head -15

step "the errors of this run: journalctl -t qemu-trace _PID=$pid TRACE_EVENT=blk_req_error"
journalctl -q --no-pager -t qemu-trace "_PID=$pid" TRACE_EVENT=blk_req_error -o cat | head -5

step "one entry, every field: journalctl -t qemu-trace _PID=$pid TRACE_EVENT=blk_req_submit -o verbose -n 1"
journalctl -q --no-pager -t qemu-trace "_PID=$pid" TRACE_EVENT=blk_req_submit -o verbose -n 1

if [ ! -x build/traceql ]; then
        step "traceql not built yet: skipping the SQL part"
        exit 0
fi

DB=$DEMO_DIR/trace.db
TQ="build/traceql --db $DB --format table"
rm -f "$DB"
step "traceql --db $DB import --identifier qemu-trace --since @$start"
build/traceql --db "$DB" import --identifier qemu-trace --since "@$start"

step "traceql events"
$TQ events

step "how many of each event did pid $pid send?"
$TQ "select event, count(*) as n from events where pid = $pid group by event order by n desc, event"

step "the first writes, through the per-event view blk_req_submit"
$TQ "select ptr(req) as req, sector, nb_sectors from blk_req_submit where pid = $pid and is_write = 1 order by seq limit 5"

step "which requests failed?"
$TQ "select tid, ptr(req) as req, sector, reason from blk_req_error where pid = $pid order by seq limit 5"

step "which buffers were never freed? (traceql leaks; exit status 9 means leaks)"
$TQ --no-sync leaks --alloc qemu_vmalloc --free qemu_vfree --size size || [ $? -eq 9 ]

step "request latency from submit to complete, by direction (traceql pairs)"
$TQ --no-sync pairs --begin blk_req_submit --end blk_req_complete --by is_write --histogram
