#!/bin/sh
# t-completion.sh - the bash completion of traceql and tracegen
# (packaging/completion/), called non-interactively: source the file, set
# COMP_WORDS / COMP_CWORD, call the function, compare COMPREPLY.  Event and
# argument names come from a database built from a crafted export stream.
. "$(dirname "$0")/lib/common.sh"

if ! command -v bash > /dev/null; then skip completion "bash missing"; exit 0; fi
C=$TOP/packaging/completion
export PATH="$B:$PATH"
# Without --db the completion reads the default database: not the user's
# (~/.cache/traceql/traceql.db), which when it exists made the fake traceql
# below answer the names query with its help text, and
# comp-traceql-generic-flag offer its words.
unset TRACEQL_DB
export XDG_CACHE_HOME="$T/cache"

# comp FILE FUNCTION WORD... : complete the last WORD (the word CW, from 0,
# when CW is set: the cursor before the words after it); prints COMPREPLY
# sorted, space-separated (the status of the function after a '|').
comp() {
        f=$1 fn=$2
        shift 2
        bash -c '
                . "$1" || exit 9
                fn=$2; shift 2
                COMP_WORDS=("$@")
                COMP_CWORD=${CW:-$(($# - 1))}
                COMP_LINE="$*"
                COMP_POINT=${#COMP_LINE}
                $fn; rc=$?
                printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " " | sed "s/ \$//"
                echo "|$rc"' sh "$f" "$fn" "$@"
}

# The database: two allocation events and a request event.
cat > "$T/c.trace" <<'TR'
10 10 1 qemu_malloc a.c:1 size:u=16 ptr:p=0x1000
10 10 2 qemu_free a.c:2 ptr:p=0x1000
10 10 3 blk_req_submit b.c:3 req:p=0x2000 sector:u=8
TR
python3 "$TOP/tests/correlate/mkexport.py" "$T/c.trace" > "$T/c.export"
"$B/traceql" --db "$T/db" import --export "$T/c.export"
mkdir -p "$T/dir/sub" && : > "$T/dir/file.events"

check_eq comp-traceql-registered "complete -F _traceql traceql" \
        "$(bash -c '. "$1"; complete -p traceql' sh "$C/traceql")"
check_eq comp-tracegen-registered "complete -F _tracegen tracegen" \
        "$(bash -c '. "$1"; complete -p tracegen' sh "$C/tracegen")"

# First word: the subcommands (the first bare word of each usage line of
# --help; other branches add some) and the per-event views.
subs=$("$B/traceql" --help | sed -n 's/^\(usage:\)\{0,1\} *traceql //p' |
        sed -e ':a' -e 's/\[[^][]*\]//g' -e 'ta' | awk '$1 ~ /^[a-z]/ { print $1 }' | tr '|' '\n')
case " $(echo $subs) " in *" import "*" leaks "*|*" leaks "*" import "*) pass comp-traceql-subcommands-parsed ;;
        *) fail comp-traceql-subcommands-parsed "[$subs]" ;; esac
check_eq comp-traceql-subcommands "$(printf '%s\n' $subs blk_req_submit qemu_free qemu_malloc | sort -u | tr '\n' ' ' | sed 's/ $//')|0" \
        "$(comp "$C/traceql" _traceql traceql --db "$T/db" '')"
check_eq comp-traceql-subcommand-prefix "leaks losses|0" \
        "$(comp "$C/traceql" _traceql traceql --db "$T/db" l)"
# Options before a subcommand: traceql's own, those of the usage lines
# without a subcommand and before one.  Every option of --help was offered,
# leaks' --alloc and import's --since too, which traceql refuses there
# without leaks or import ("option '--alloc' is for leaks or pairs, and the
# command is neither", "import options given without 'import'").
check_eq comp-traceql-options "--db --format --help --no-sync --version --write|0" \
        "$(comp "$C/traceql" _traceql traceql --)"
check_eq comp-traceql-options-f "--format|0" "$(comp "$C/traceql" _traceql traceql --f)"
check_eq comp-traceql-options-no-alloc "|0" "$(comp "$C/traceql" _traceql traceql --al)"
check_eq comp-traceql-options-no-since "|0" "$(comp "$C/traceql" _traceql traceql --db "$T/db" --si)"
# after the SQL (getopt_long() takes options there too) the same
check_eq comp-traceql-options-after-sql "--format|0" "$(comp "$C/traceql" _traceql traceql 'select 1' --f)"
# ... but before leaks, pairs or import on the line, theirs: traceql takes
# them there ("--size FIELD leaks", "--since TIME import")
check_eq comp-traceql-options-before-leaks "--alloc|0" "$(CW=1 comp "$C/traceql" _traceql traceql --al leaks)"
check_eq comp-traceql-options-before-leaks-s "--size --sql|0" \
        "$(CW=3 comp "$C/traceql" _traceql traceql --db "$T/db" --s --alloc a leaks)"
check_eq comp-traceql-options-before-import "--simpletrace --since|0" \
        "$(CW=1 comp "$C/traceql" _traceql traceql --si import --syslog f)"
check_eq comp-traceql-options-before-pairs-valued "--begin --by|0" \
        "$(CW=1 comp "$C/traceql" _traceql traceql --b --sql pairs pairs)"
check_eq comp-traceql-format-before-leaks "json jsonl|0" \
        "$(CW=2 comp "$C/traceql" _traceql traceql --format j leaks)"
# After a subcommand, that subcommand's options: leaks has --alloc, not --begin.
got=$(comp "$C/traceql" _traceql traceql leaks --)
want=$("$B/traceql" leaks --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u | tr '\n' ' ' | sed 's/ $//')
check_eq comp-traceql-leaks-options "$want|0" "$got"
case " ${got%|*} " in *" --alloc "*" --begin "*|*" --begin "*) fail comp-traceql-leaks-only "$got" ;;
        *" --alloc "*) pass comp-traceql-leaks-only ;; *) fail comp-traceql-leaks-only "$got" ;; esac
# import --help shows every subcommand's usage: only import's options are
# offered (--alloc, --format and the like were too)
check_eq comp-traceql-import-options "--boot --db --directory --events --export --file --follow --formats --ftrace --identifier --log --simpletrace --since --syslog --until --xentrace|0" \
        "$(comp "$C/traceql" _traceql traceql import --)"
# events and losses share one usage line ("events|losses"): their options
# were offered for neither
check_eq comp-traceql-events-options "--db --format --no-sync|0" \
        "$(comp "$C/traceql" _traceql traceql events --)"
check_eq comp-traceql-losses-options "--db --format --no-sync|0" \
        "$(comp "$C/traceql" _traceql traceql losses --)"
check_eq comp-traceql-format "json jsonl|0" "$(comp "$C/traceql" _traceql traceql --format j)"
check_eq comp-traceql-format-eq "csv|0" "$(comp "$C/traceql" _traceql traceql --format=c)"
# leaks and pairs offer what their usage lines say (they took no jsonl once)
check_eq comp-traceql-leaks-format "json jsonl|0" "$(comp "$C/traceql" _traceql traceql leaks --format j)"
check_eq comp-traceql-pairs-format-eq "json jsonl|0" "$(comp "$C/traceql" _traceql traceql pairs --format=j)"
check_eq comp-traceql-events-format "json jsonl|0" "$(comp "$C/traceql" _traceql traceql events --format j)"

# The words before as traceql reads them (traceql.c main(), traceql_parse()).
# After "--" the word is the SQL, whatever it is: the event views, no
# subcommand (they were offered), and nothing after it; "--" as --db's value
# is that value.
check_eq comp-traceql-dashdash "blk_req_submit qemu_free qemu_malloc|0" \
        "$(comp "$C/traceql" _traceql traceql --db "$T/db" -- '')"
check_eq comp-traceql-dashdash-prefix "|0" "$(comp "$C/traceql" _traceql traceql -- lea)"
check_eq comp-traceql-dashdash-after "|0" \
        "$(comp "$C/traceql" _traceql traceql --db "$T/db" -- leaks --alloc q)"
check_eq comp-traceql-dashdash-options "|0" "$(comp "$C/traceql" _traceql traceql -- --f)"
check_eq comp-traceql-dashdash-db-value "leaks|0" "$(comp "$C/traceql" _traceql traceql --db -- lea)"
# Every option's value is passed over, leaks' and pairs' before them too
# ("--size leaks" took leaks for the subcommand, "--sql --format" offered
# formats), by an abbreviation too; "--db=leaks" (split at '=') is a value.
check_eq comp-traceql-size-value "leaks|0" "$(comp "$C/traceql" _traceql traceql --size leaks lea)"
check_eq comp-traceql-sql-value "leaks|0" "$(comp "$C/traceql" _traceql traceql --sql import lea)"
check_eq comp-traceql-abbrev-value "leaks|0" "$(comp "$C/traceql" _traceql traceql --siz pairs lea)"
check_eq comp-traceql-value-dashes "|0" "$(comp "$C/traceql" _traceql traceql --sql --format j)"
check_eq comp-traceql-db-eq-split-value "leaks|0" "$(comp "$C/traceql" _traceql traceql --db = leaks lea)"
check_eq comp-traceql-size-before "qemu_free qemu_malloc|0" \
        "$(comp "$C/traceql" _traceql traceql --db "$T/db" --size size leaks --alloc q)"
check_eq comp-traceql-abbrev-events "qemu_free qemu_malloc|0" \
        "$(comp "$C/traceql" _traceql traceql --db "$T/db" leaks --al q)"
check_eq comp-traceql-db-eq-split "qemu_free qemu_malloc|0" \
        "$(comp "$C/traceql" _traceql traceql --db = "$T/db" leaks --alloc q)"
# after the SQL, no other word: the subcommands were offered
check_eq comp-traceql-after-sql "|0" "$(comp "$C/traceql" _traceql traceql --db "$T/db" 'select 1' '')"

# Event names from the database, for --alloc/--free/--begin/--end.
check_eq comp-traceql-events "qemu_free qemu_malloc|0" \
        "$(comp "$C/traceql" _traceql traceql --db "$T/db" leaks --alloc q)"
check_eq comp-traceql-events-split-eq "qemu_free qemu_malloc|0" \
        "$(comp "$C/traceql" _traceql traceql --db "$T/db" leaks --free = q)"
check_eq comp-traceql-events-list "qemu_malloc,qemu_free|0" \
        "$(comp "$C/traceql" _traceql traceql --db "$T/db" leaks --alloc qemu_malloc,qemu_f)"
check_eq comp-traceql-event-field "qemu_malloc:ptr qemu_malloc:size|0" \
        "$(comp "$C/traceql" _traceql traceql --db "$T/db" leaks --alloc qemu_malloc:)"
check_eq comp-traceql-begin "blk_req_submit|0" \
        "$(comp "$C/traceql" _traceql traceql --db="$T/db" pairs --begin b)"
check_eq comp-traceql-by "sector size|0" \
        "$(comp "$C/traceql" _traceql traceql --db "$T/db" pairs --by s)"
check_eq comp-traceql-identifier "crafted|0" \
        "$(comp "$C/traceql" _traceql traceql --db "$T/db" import --identifier c)"
# $TRACEQL_DB when there is no --db.
check_eq comp-traceql-env-db "blk_req_submit|0" \
        "$(TRACEQL_DB=$T/db comp "$C/traceql" _traceql traceql pairs --end b)"
# No database: no names, and none is created.
check_eq comp-traceql-no-db "|0|absent" \
        "$(comp "$C/traceql" _traceql traceql --db "$T/none.db" leaks --alloc '')|$(
           [ -e "$T/none.db" ] && echo created || echo absent)"
# The words as typed: "--db ~/db" or a quoted path is the file the shell
# passes (a file named "~/db" in the current directory was looked for), and
# so is the command ~/traceql; a word that would run something is not
# evaluated.
cp "$T/db" "$T/my db"
check_eq comp-traceql-db-tilde "qemu_free qemu_malloc|0" \
        "$(HOME=$T comp "$C/traceql" _traceql traceql --db '~/db' leaks --alloc q)"
check_eq comp-traceql-db-quoted "qemu_free qemu_malloc|0" \
        "$(comp "$C/traceql" _traceql traceql --db "'$T/my db'" leaks --alloc q)"
check_eq comp-traceql-db-backslash "qemu_free qemu_malloc|0" \
        "$(comp "$C/traceql" _traceql traceql --db "$T/my\\ db" leaks --alloc q)"
check_eq comp-traceql-cmd-tilde "leaks losses|0" "$(HOME=$B comp "$C/traceql" _traceql '~/traceql' l)"
check_eq comp-traceql-db-not-run "|0|absent" \
        "$(comp "$C/traceql" _traceql traceql --db "\$(touch $T/ran)" leaks --alloc q)|$(
           [ -e "$T/ran" ] && echo ran || echo absent)"
check_eq comp-traceql-directory "$T/dir/sub|0" \
        "$(comp "$C/traceql" _traceql traceql import --directory "$T/dir/")"
check_eq comp-traceql-export "$T/dir/file.events $T/dir/sub|0" \
        "$(comp "$C/traceql" _traceql traceql import --export "$T/dir/")"

# tracegen
want=$("$B/tracegen" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u | tr '\n' ' ' | sed 's/ $//')
check_eq comp-tracegen-options "$want|0" "$(comp "$C/tracegen" _tracegen tracegen --)"
check_eq comp-tracegen-options-prefix "--header --header-include --help|0" \
        "$(comp "$C/tracegen" _tracegen tracegen --he)"
check_eq comp-tracegen-backend "dtrace nop tracejournal ust|0" \
        "$(comp "$C/tracegen" _tracegen tracegen --backend '')"
check_eq comp-tracegen-backends "dtrace|0" \
        "$(comp "$C/tracegen" _tracegen tracegen --backends=d)"
check_eq comp-tracegen-backend-list "tracejournal,dtrace|0" \
        "$(comp "$C/tracegen" _tracegen tracegen --backend tracejournal,d)"
check_eq comp-tracegen-backend-eq "tracejournal|0" \
        "$(comp "$C/tracegen" _tracegen tracegen --backend=t)"
check_eq comp-tracegen-backend-split "nop|0" \
        "$(comp "$C/tracegen" _tracegen tracegen -b = n)"
check_eq comp-tracegen-output-dir "$T/dir/sub|0" \
        "$(comp "$C/tracegen" _tracegen tracegen --output-dir "$T/dir/")"
check_eq comp-tracegen-group "|0" "$(comp "$C/tracegen" _tracegen tracegen --group '')"
check_eq comp-tracegen-operand "$T/dir/file.events $T/dir/sub|0" \
        "$(comp "$C/tracegen" _tracegen tracegen --group=g -c "$T/dir/")"
# After "--" every word is a trace-events file (getopt_long()), one named
# "-v.events" too: the options were offered, and "-g" took a value.
mkdir -p "$T/dd" && : > "$T/dd/-v.events" && : > "$T/dd/x"
check_eq comp-tracegen-dashdash "-v.events|0" "$(cd "$T/dd" && comp "$C/tracegen" _tracegen tracegen -- -)"
check_eq comp-tracegen-dashdash-then-option "-v.events x|0" \
        "$(cd "$T/dd" && comp "$C/tracegen" _tracegen tracegen -c -- -g '')"
check_eq comp-tracegen-cmd-tilde "--header --header-include --help|0" \
        "$(HOME=$B comp "$C/tracegen" _tracegen '~/tracegen' --he)"
# "--" as an option's value does not end the options.
check_eq comp-tracegen-dashdash-value "$want|0" "$(comp "$C/tracegen" _tracegen tracegen -g -- --)"
check_eq comp-tracegen-dashdash-eq-value "$want|0" "$(comp "$C/tracegen" _tracegen tracegen --group = -- --)"

# Options this file does not know (another importer's), from a traceql whose
# --help shows them: FILE and DIR values completed, other values not, flags
# fall through to the subcommands.
cat > "$T/fakeql" <<'FAKE'
#!/bin/sh
cat <<'HELP'
usage: traceql [--db FILE] [--format table|csv] SQL|-
       traceql [--db FILE] import [--syslog FILE|-] [--spool DIR] [--facility NAME] [--strict]
               [--events TRACE-EVENTS]...
       traceql [--db FILE] [--no-sync] newsub [--window N]
HELP
FAKE
chmod +x "$T/fakeql"
check_eq comp-traceql-generic-file "$T/dir/file.events $T/dir/sub|0" \
        "$(comp "$C/traceql" _traceql "$T/fakeql" import --syslog "$T/dir/")"
check_eq comp-traceql-generic-dir "$T/dir/sub|0" \
        "$(comp "$C/traceql" _traceql "$T/fakeql" import --spool "$T/dir/")"
check_eq comp-traceql-generic-events-file "$T/dir/file.events $T/dir/sub|0" \
        "$(comp "$C/traceql" _traceql "$T/fakeql" import --events "$T/dir/")"
check_eq comp-traceql-generic-value "|0" \
        "$(comp "$C/traceql" _traceql "$T/fakeql" import --facility '')"
check_eq comp-traceql-generic-flag "import newsub|0" \
        "$(comp "$C/traceql" _traceql "$T/fakeql" --strict '')"
check_eq comp-traceql-generic-options "--format|0" \
        "$(comp "$C/traceql" _traceql "$T/fakeql" --f)"
check_eq comp-traceql-generic-options-sub "--facility|0" \
        "$(CW=1 comp "$C/traceql" _traceql "$T/fakeql" --f import)"
check_eq comp-traceql-generic-options-before "--db --format --no-sync|0" \
        "$(comp "$C/traceql" _traceql "$T/fakeql" --)"

# A subcommand with a grammar of its own (as `traceql ctl`): its usage lines
# give the operands, PID from the control sockets, PATTERN from the events.
cat > "$T/ctlql" <<'FAKE'
#!/bin/sh
if [ "${1:-}" = ctl ]; then
        cat <<'HELP'
usage: traceql ctl PID list [PATTERN]
       traceql ctl PID enable|disable PATTERN
       traceql ctl PID flush|stats
HELP
        exit 0
fi
if [ "${1:-}" = --help ]; then
        echo "usage: traceql [--db FILE] SQL|-"
        echo "       traceql ctl PID list [PATTERN] | enable|disable PATTERN | flush | stats"
        exit 0
fi
exec "$REAL_TRACEQL" "$@"
FAKE
chmod +x "$T/ctlql"
export REAL_TRACEQL="$B/traceql"
mkdir -p "$T/ctl"
# sockets of two running processes (this shell, a sleep), of one gone, and a
# file that is no socket: the two running ones are offered.  (Sockets in
# /run/tracejournal are offered too: only these are checked.)
sleep 60 &
live=$!
sh -c 'exit 0' &
gone=$!
wait $gone
python3 -c 'import socket, sys
for p in sys.argv[1:]: socket.socket(socket.AF_UNIX).bind(p)' "$T/ctl/$$.sock" "$T/ctl/$live.sock" \
        "$T/ctl/$gone.sock"
: > "$T/ctl/88.sock"        # not a socket
check_eq comp-traceql-ctl-subcommand "ctl|0" "$(comp "$C/traceql" _traceql "$T/ctlql" c)"
check_eq comp-traceql-ctl-pid "$(printf '%s\n' $$ $live | sort | tr '\n' ' ')|0" \
        "$(TJ_CONTROL_DIR=$T/ctl XDG_RUNTIME_DIR=$T/none comp "$C/traceql" _traceql "$T/ctlql" ctl '' |
           tr ' |' '\n\n' | grep -x -e $$ -e $live -e $gone -e 88 -e 0 | sort | tr '\n' ' ' |
           sed 's/^0 \(.*\)/\1|0/')"
kill $live 2>/dev/null || true
check_eq comp-traceql-ctl-verb "disable enable flush list stats|0" \
        "$(comp "$C/traceql" _traceql "$T/ctlql" ctl 4321 '')"
check_eq comp-traceql-ctl-verb-prefix "disable|0" \
        "$(comp "$C/traceql" _traceql "$T/ctlql" ctl 4321 d)"
check_eq comp-traceql-ctl-pattern "qemu_free qemu_malloc|0" \
        "$(comp "$C/traceql" _traceql "$T/ctlql" --db "$T/db" ctl 4321 enable q)"
check_eq comp-traceql-ctl-end "|0" "$(comp "$C/traceql" _traceql "$T/ctlql" --db "$T/db" ctl 4321 flush '')"
# "ctl PID outputs LIST" (traceql's own ctl --help): the library's outputs,
# after a comma too (the list is comma-separated)
check_eq comp-traceql-ctl-outputs "ftrace journald log nop simple syslog|0" \
        "$(comp "$C/traceql" _traceql "$B/traceql" ctl 4321 outputs '')"
check_eq comp-traceql-ctl-outputs-prefix "simple syslog|0" \
        "$(comp "$C/traceql" _traceql "$B/traceql" ctl 4321 outputs s)"
check_eq comp-traceql-ctl-outputs-comma "journald,simple journald,syslog|0" \
        "$(comp "$C/traceql" _traceql "$B/traceql" ctl 4321 outputs journald,s)"
check_eq comp-traceql-ctl-outputs-after "|0" "$(comp "$C/traceql" _traceql "$B/traceql" ctl 4321 outputs nop '')"

# sources takes --db and --format; forget --db and the ids of the sources
# not forgotten yet, those already given passed over (its usage line,
# "[--db FILE] forget ID...", has options before the subcommand and a
# repeated operand: no id was offered).
check_eq comp-traceql-sources-options "--db --format|0" "$(comp "$C/traceql" _traceql traceql sources --)"
check_eq comp-traceql-forget-options "--db|0" "$(comp "$C/traceql" _traceql traceql forget --)"
for f in a b c; do printf 'Nov 28 10:00:00 h p[1]: %s\n' $f > "$T/$f.log"
        "$B/traceql" --db "$T/src.db" import --log "$T/$f.log" 2> /dev/null; done
"$B/traceql" --db "$T/src.db" forget 2
check_eq comp-traceql-forget-ids "1 3|0" "$(comp "$C/traceql" _traceql traceql --db "$T/src.db" forget '')"
check_eq comp-traceql-forget-ids-given "3|0" \
        "$(comp "$C/traceql" _traceql traceql --db "$T/src.db" forget 1 '')"
check_eq comp-traceql-forget-ids-db-after "1|0" \
        "$(comp "$C/traceql" _traceql traceql forget 3 --db "$T/src.db" '')"
check_eq comp-traceql-forget-ids-none "|0" \
        "$(comp "$C/traceql" _traceql traceql --db "$T/src.db" forget 3 1 '')"
