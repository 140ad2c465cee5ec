#!/bin/sh
# t-traceql-golden.sh - golden queries: tests/sql/NAME.sql against
# tests/sql/fixture.export (made by tests/sql/fixture.py), compared with
# NAME.out exactly.  The first line of NAME.sql is "-- args: ARGS": the
# traceql arguments ("-" reads the file itself as the SQL).  NAME.out holds
# stdout, then stderr, then "exit N"; the database path reads DB.
# TRACEQL_UPDATE_GOLDEN=1 rewrites the .out files instead of comparing.
. "$(dirname "$0")/lib/common.sh"

TQ=$B/traceql
if [ ! -x "$TQ" ]; then fail traceql-built "$TQ missing: run make"; exit 0; fi
DB=$T/g.db
$TQ --db "$DB" import --export "$TOP/tests/sql/fixture.export"
check_eq golden-fixture-rows "15|1" "$($TQ --db "$DB" --no-sync --format csv \
        "select (select count(*) from events) || '|' || (select count(*) from journal_suppressed) as v" | tail -n +2)"

for sql in "$TOP"/tests/sql/*.sql; do
        name=$(basename "$sql" .sql)
        args=$(sed -n '1s/^-- args: //p' "$sql")
        rc=0
        # shellcheck disable=SC2086  # ARGS are words on purpose
        $RUN "$TQ" --db "$DB" --no-sync $args < "$sql" > "$T/out" 2> "$T/err" || rc=$?
        { cat "$T/out" "$T/err"; echo "exit $rc"; } | sed "s|$DB|DB|g" > "$T/got"
        if [ "${TRACEQL_UPDATE_GOLDEN:-}" = 1 ]; then
                cp "$T/got" "$TOP/tests/sql/$name.out"
        fi
        check_file "golden-$name" "$TOP/tests/sql/$name.out" "$T/got"
done
check_eq golden-readonly-kept "15" "$($TQ --db "$DB" --no-sync --format csv 'select count(*) from events' | tail -n +2)"
