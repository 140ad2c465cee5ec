#!/bin/sh
# t-traceql-sources.sh - traceql sources and traceql forget (traceql.1).
#
# A database's journal sources are synced before every query: a --file
# whose journal was removed (journal-remote's files rotate and get vacuumed)
# made every later query fail, exit 4, with no way out but --no-sync each
# time or a --write DELETE.  `traceql sources` lists the sources without
# syncing; `traceql forget ID...` detaches them (filter 'forgotten ID'), their
# rows kept; the sync's error names the source and the way out.  Exact
# output, exit status and rows, errors leaving the database as it was.
. "$(dirname "$0")/lib/common.sh"

TQ=$B/traceql
if [ ! -x "$TQ" ]; then fail traceql-built "$TQ missing: run make"; exit 0; fi
JR=/lib/systemd/systemd-journal-remote
if [ ! -x "$JR" ]; then skip sources "no $JR (Debian package systemd-journal-remote)"; exit 0; fi

run() { tq_run "$@"; }   # exact status and stderr (common.sh)
# mkjournal FILE N: a journal file of N entries, SYSLOG_IDENTIFIER fgt
mkjournal() {
        awk -v n="$2" 'BEGIN { for (i = 1; i <= n; i++)
                printf "__CURSOR=s=0123456789abcdef0123456789abcdef;i=%x;b=fedcba9876543210fedcba9876543210;m=%x;t=1;x=1\n__REALTIME_TIMESTAMP=%d\n__MONOTONIC_TIMESTAMP=%d\n_BOOT_ID=fedcba9876543210fedcba9876543210\n_HOSTNAME=h\nSYSLOG_IDENTIFIER=fgt\nTRACE_EVENT=ev\nMESSAGE=ev number %d\n\n",
                        i, i, 1700000000000000 + i, i, i }' | "$JR" -o "$1" - 2> /dev/null
}
# run1 NAME STATUS LINE ARGS...: exact status and first line of stderr (the
# usage follows)
run1() {
        name=$1 st=$2 msg=$3
        shift 3
        rc=0
        $RUN "$TQ" "$@" > "$T/out" 2> "$T/err" < /dev/null || rc=$?
        check_eq "$name" "$st|$msg" "$rc|$(head -n 1 "$T/err")"
}
# out: the output of the last run, its times (ns_time(updated), UTC) as TIME
TIME=yyyy-mm-ddThh:mm:ss.nnnnnnnnnZ
out() { sed -E "s/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9}Z/$TIME/g" "$T/out"; }
count() { "$TQ" --db "$DB" --no-sync --format csv 'select count(*) from events' | tail -n 1; }

DB=$T/j.db
mkjournal "$T/x.journal" 3
printf 'Nov 28 10:00:00 h prog[1]: hello\n' > "$T/a.log"
run sources-import-journal 0 "" --db "$DB" import --file "$T/x.journal"
run sources-import-log 0 "traceql: $T/a.log: 1 line, 1 new event, 1 of them without a known event" \
        --db "$DB" import --log "$T/a.log"

# ---- the list, in every format, never synced --------------------------------
run sources-csv 0 "" --db "$DB" --format csv sources
check_eq sources-csv-rows "id,kind,location,filter,rows,updated,synced
1,journal,files:$T/x.journal,\"\",3,$TIME,yes
2,log,$T/a.log,\"\",1,$TIME,no" "$(out)"
run sources-table 0 "" --db "$DB" --format table sources
w=$(printf '%s' "files:$T/x.journal" | wc -c)
check_eq sources-table-rows "$(printf "%2s  %-7s  %-${w}s  %-6s  %4s  %-30s  %s\n" id kind location filter rows updated synced \
        -- ------- "$(printf "%${w}s" | tr ' ' -)" ------ ---- ------------------------------ ------ \
        1 journal "files:$T/x.journal" "" 3 $TIME yes 2 log "$T/a.log" "" 1 $TIME no |
        sed 's/ *$//')" "$(out)"
run sources-json 0 "" --db "$DB" --format json sources
check_eq sources-json-rows "[
{\"id\":1,\"kind\":\"journal\",\"location\":\"files:$T/x.journal\",\"filter\":\"\",\"rows\":3,\"updated\":\"$TIME\",\"synced\":\"yes\"},
{\"id\":2,\"kind\":\"log\",\"location\":\"$T/a.log\",\"filter\":\"\",\"rows\":1,\"updated\":\"$TIME\",\"synced\":\"no\"}
]" "$(out)"
run sources-jsonl 0 "" --db "$DB" --format jsonl sources
check_eq sources-jsonl-rows "{\"id\":1,\"kind\":\"journal\",\"location\":\"files:$T/x.journal\",\"filter\":\"\",\"rows\":3,\"updated\":\"$TIME\",\"synced\":\"yes\"}
{\"id\":2,\"kind\":\"log\",\"location\":\"$T/a.log\",\"filter\":\"\",\"rows\":1,\"updated\":\"$TIME\",\"synced\":\"no\"}" "$(out)"

# ---- the journal file removed: every query's sync fails, saying the way out --
rm "$T/x.journal"
hint="traceql: $T/x.journal: cannot open journal: No such file or directory (source 1 of $T/j.db; 'traceql forget 1' stops syncing it, --no-sync skips the sync)"
run sources-vanished-query 4 "$hint" --db "$DB" 'select count(*) from events'
run sources-vanished-events 4 "$hint" --db "$DB" events
# the list is not synced: it shows the source to forget
run sources-vanished-list 0 "" --db "$DB" --format csv sources
check_eq sources-vanished-list-rows "id,kind,location,filter,rows,updated,synced
1,journal,files:$T/x.journal,\"\",3,$TIME,yes
2,log,$T/a.log,\"\",1,$TIME,no" "$(out)"

# ---- forget: bad command lines and unknown ids change nothing ---------------
cp "$DB" "$T/before.db"
run forget-no-id 2 "traceql: forget: no source id given (traceql forget ID..., with the ids 'traceql sources' lists)" \
        --db "$DB" forget
run forget-not-number 2 "traceql: forget: 'x1' is not a source id (a number 'traceql sources' lists)" \
        --db "$DB" forget x1
run forget-trailing 2 "traceql: forget: '1x' is not a source id (a number 'traceql sources' lists)" \
        --db "$DB" forget 1 1x
run forget-too-large 2 "traceql: forget: '99999999999999999999' is not a source id (a number 'traceql sources' lists)" \
        --db "$DB" forget 99999999999999999999
run forget-empty 2 "traceql: forget: '' is not a source id (a number 'traceql sources' lists)" \
        --db "$DB" forget ''
run forget-escaped 2 "traceql: forget: 'a\\x1b[2Jb' is not a source id (a number 'traceql sources' lists)" \
        --db "$DB" forget "$(printf 'a\033[2Jb')"
run forget-unknown 4 "traceql: $T/j.db: no source 7 ('traceql sources' lists them)" --db "$DB" forget 7
# one unknown id among known ones: none is forgotten (one transaction)
run forget-unknown-among 4 "traceql: $T/j.db: no source 7 ('traceql sources' lists them)" \
        --db "$DB" forget 1 7 2
run forget-format 2 "traceql: --format: not an option of forget" --db "$DB" --format csv forget 1
run forget-no-sync 2 "traceql: --no-sync: not an option of forget" --db "$DB" forget --no-sync 1
run forget-write 2 "traceql: --write: not an option of forget" --db "$DB" forget 1 --write
run sources-no-sync 2 "traceql: --no-sync: not an option of sources" --db "$DB" --no-sync sources
run sources-write 2 "traceql: --write: not an option of sources" --db "$DB" --write sources
run1 sources-operand 2 "traceql: unexpected argument '1' (quote the SQL as one argument)" --db "$DB" sources 1
run forget-mistyped 2 "traceql: unknown subcommand 'forgt'; did you mean 'forget'? (as SQL: traceql -- forgt)" \
        --db "$DB" forgt 1
run sources-mistyped 2 "traceql: unknown subcommand 'sorces'; did you mean 'sources'? (as SQL: traceql -- sorces)" \
        --db "$DB" sorces
# after "--" the word is SQL, and one word only
run1 forget-dashdash 2 "traceql: unexpected argument '1' (quote the SQL as one argument)" --db "$DB" -- forget 1
# a database that is not there is not made
run forget-no-db 3 "traceql: $T/none.db: No such file or directory" --db "$T/none.db" forget 1
check_eq forget-no-db-made "" "$(ls "$T"/none.db* 2> /dev/null)"
check_eq forget-errors-nothing-changed "" "$("$TQ" --db "$DB" --no-sync --format csv \
        "attach '$T/before.db' as b; select * from sources except select * from b.sources" | tail -n +2)"

# ---- forget: the query runs again, the rows stay ----------------------------
run forget-one 0 "" --db "$DB" forget 1
run forget-query 0 "" --db "$DB" --format csv 'select source, count(*) from events group by source'
check_eq forget-query-rows "source,count(*)
1,3
2,1" "$(cat "$T/out")"
run forget-list 0 "" --db "$DB" --format csv sources
check_eq forget-list-rows "id,kind,location,filter,rows,updated,synced
1,journal,files:$T/x.journal,forgotten 1,3,$TIME,no
2,log,$T/a.log,\"\",1,$TIME,no" "$(out)"
run forget-again 0 "traceql: $T/j.db: source 1 is forgotten already" --db "$DB" forget 1
# options after the ids, and an id given twice, forgotten once
run forget-repeated 0 "" forget 2 2 --db "$DB"
run forget-repeated-list 0 "" --db "$DB" --format csv 'select id, filter from sources'
check_eq forget-repeated-rows "id,filter
1,forgotten 1
2,forgotten 2" "$(cat "$T/out")"

# ---- import after forget: a new source; no row twice ------------------------
# The same journal file again (journal-remote gives it another seqnum id: its
# entries are new ones): a new source, synced.
mkjournal "$T/x.journal" 4
run reimport-journal 0 "" --db "$DB" import --file "$T/x.journal"
run reimport-query 0 "" --db "$DB" --format csv 'select source, count(*) from events group by source'
check_eq reimport-rows "source,count(*)
1,3
2,1
3,4" "$(cat "$T/out")"
# Forgotten while the file is still there, and imported again: read from its
# start under a new source, every entry there already (the journal identity)
run reforget-journal 0 "" --db "$DB" forget 3
run reimport-same-journal 0 "" --db "$DB" import --file "$T/x.journal"
check_eq reimport-same-journal-rows "8" "$(count)"
# with identifiers and a boot: the filter it had follows on the next line
run import-filtered 0 "" --db "$DB" import --file "$T/x.journal" --identifier fgt \
        --boot=fedcba9876543210fedcba9876543210
run forget-filtered 0 "" --db "$DB" forget 5
run forget-filtered-list 0 "" --db "$DB" --format csv sources
check_eq forget-filtered-rows "id,kind,location,filter,rows,updated,synced
1,journal,files:$T/x.journal,forgotten 1,3,$TIME,no
2,log,$T/a.log,forgotten 2,1,$TIME,no
3,journal,files:$T/x.journal,forgotten 3,4,$TIME,no
4,journal,files:$T/x.journal,\"\",0,$TIME,yes
5,journal,files:$T/x.journal,\"forgotten 5
fgt
boot=fedcba9876543210fedcba9876543210\",0,$TIME,no" "$(out)"
# the log file forgotten and imported again: resumed where its forgotten
# source stopped, not read twice
run reimport-log 0 "traceql: $T/a.log: the file imported before by an earlier source of this name: resuming at byte 33
traceql: $T/a.log: 0 lines, 0 new events, 0 of them without a known event" --db "$DB" import --log "$T/a.log"
check_eq reimport-log-rows "8|6" "$(count)|$("$TQ" --db "$DB" --no-sync --format csv 'select max(id) from sources' | tail -n 1)"
# the sync replays source 4 alone: the file removed again, its error names it
rm "$T/x.journal"
run forget-sync-names-source 4 "traceql: $T/x.journal: cannot open journal: No such file or directory (source 4 of $T/j.db; 'traceql forget 4' stops syncing it, --no-sync skips the sync)" \
        --db "$DB" 'select 1'
run forget-last 0 "" --db "$DB" forget 4
# every source forgotten: the sync imports nothing (not the local journal)
run forget-all-query 0 "" --db "$DB" --format csv 'select count(*) from events'
check_eq forget-all-rows "count(*)
8" "$(cat "$T/out")"

# An export file is resumed as the other files are (import_resume()): one
# renamed by a rotation resumes at the offset of the source it was, a new
# file under the old name is a replaced one, its source kept under
# 'replaced ID'.  Export read every new name from its start and a replaced
# file into the same source: entries without __CURSOR (no journal
# identity) were stored twice, and no source was split off.
ent() { printf '__REALTIME_TIMESTAMP=%d\n_HOSTNAME=h\nSYSLOG_IDENTIFIER=nc\nMESSAGE=e %d\nTRACE_EVENT=e\nTRACE_ARGS=n:i\nTRACE_ARG_N=%d\n\n' \
        $((1795970000000000 + $1)) "$1" "$1"; }
rm -f "$T"/nc.db* "$T"/nc.export*
{ ent 1; ent 2; } > "$T/nc.export"
"$TQ" --db "$T/nc.db" import --export "$T/nc.export"
mv "$T/nc.export" "$T/nc.export.1"
ent 3 >> "$T/nc.export.1"
ent 4 > "$T/nc.export"
"$TQ" --db "$T/nc.db" import --export "$T/nc.export.1" 2> "$T/err1"
"$TQ" --db "$T/nc.db" import --export "$T/nc.export" 2> "$T/err2"
check_eq export-renamed-replaced "traceql: $T/nc.export.1: the file imported before as $T/nc.export (renamed): resuming at byte 254|traceql: $T/nc.export: not the file imported before (truncated or replaced): importing it from the start|1 2 3 4|nc.export:replaced 1:2 nc.export.1::1 nc.export::1" \
        "$(cat "$T/err1")|$(cat "$T/err2")|$("$TQ" --db "$T/nc.db" --no-sync --format csv \
        'select group_concat(n, " ") as v from (select n from e order by n)' | tail -n 1)|$("$TQ" --db "$T/nc.db" \
        --no-sync --format csv "select group_concat(replace(location, '$T/', '') || ':' || filter || ':' || rows, ' ') as v from (select * from sources order by id)" | tail -n 1)"

# --since passes the entries before it over for good once an entry at or
# after it is stored (the position is past them); with every entry before
# it, no position is stored, and an import without --since reads them all
# (traceql.1 says both).
# (mkjournal's times are all one: mawk's %d stops at 2^31-1)
awk 'BEGIN { for (i = 1; i <= 10; i++)
        printf "__CURSOR=s=0123456789abcdef0123456789abcdef;i=%x;b=fedcba9876543210fedcba9876543210;m=%x;t=1;x=1\n__REALTIME_TIMESTAMP=1700000000%06d\n__MONOTONIC_TIMESTAMP=%d\n_BOOT_ID=fedcba9876543210fedcba9876543210\n_HOSTNAME=h\nSYSLOG_IDENTIFIER=fgt\nTRACE_EVENT=ev\nMESSAGE=ev number %d\n\n",
                i, i, i, i, i }' | "$JR" -o "$T/sn.journal" - 2> /dev/null
for s in @1700000001 @1700000000.000006; do
        rm -f "$T"/sn.db*
        "$TQ" --db "$T/sn.db" import --file "$T/sn.journal" --since "$s" 2> /dev/null
        a=$("$TQ" --db "$T/sn.db" --no-sync --format csv 'select count(*) from events' | tail -n 1)
        "$TQ" --db "$T/sn.db" import --file "$T/sn.journal" 2> /dev/null
        echo "$a $("$TQ" --db "$T/sn.db" --no-sync --format csv 'select count(*) from events' | tail -n 1)"
done > "$T/sn.n"
check_eq journal-since-position "0 10|5 5" "$(paste -sd '|' "$T/sn.n")"
