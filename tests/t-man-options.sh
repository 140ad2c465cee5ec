#!/bin/sh
# t-man-options.sh - the man pages and --help agree: every option that
# `tracegen --help`, `traceql --help` and `traceql SUBCOMMAND --help` print is
# described in tracegen(1) / traceql(1) (an .It entry of a list), and every
# option those pages show (SYNOPSIS or .It) is in the help; traceql's subcommands are the
# same in both.  Nothing is listed here: both sides are parsed, so an option
# added to a tool without its page (or the other way round) fails.  Also every
# page in man/ is clean under mandoc -Tlint (warnings and worse).
. "$(dirname "$0")/lib/common.sh"

# helpopts: the options in a --help text on stdin, one per line
helpopts() {
        grep -oE -- '(^|[][ ,|(])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[][ ,|(]*//' | sort -u
}
# manopts PAGE [1]: the options PAGE shows (with 1: describes in an .It entry)
manopts() { awk -v described="${2:-0}" -f "$TOP/tests/lib/manopts.awk" "$1" | sort -u; }

# compare NAME HELP-FILE MAN-FILE [DESCRIBED-FILE]: help options missing from
# DESCRIBED-FILE (default MAN-FILE), man options missing from the help
compare() {
        check_eq "$1-help-in-man" "" "$(comm -23 "$2" "${4:-$3}" | tr '\n' ' ' | sed 's/ $//')"
        check_eq "$1-man-in-help" "" "$(comm -13 "$2" "$3" | tr '\n' ' ' | sed 's/ $//')"
}

"$B/tracegen" --help | helpopts > "$T/tg.help"
manopts "$TOP/man/tracegen.1" > "$T/tg.man"
manopts "$TOP/man/tracegen.1" 1 > "$T/tg.desc"
# Both sides found something (a parser that finds nothing would agree).
check_eq man-tracegen-parsed "yes yes" "$(grep -qx -- --group "$T/tg.help" && echo yes) $(
        grep -qx -- -g "$T/tg.man" && echo yes)"
compare man-tracegen "$T/tg.help" "$T/tg.man" "$T/tg.desc"

# traceql's subcommands: the first bare word of each usage line once the
# [optional] parts are removed (alternatives split at '|'), and the first .Cm
# line of each SYNOPSIS block (one per .Nm) of traceql(1).
"$B/traceql" --help | awk '
        /^(usage:)? *traceql / {
                while (gsub(/\[[^][]*\]/, "")) ;
                for (i = 1; i <= NF; i++) {
                        if ($i == "traceql" || $i == "usage:") continue
                        if ($i !~ /^[a-z][a-z0-9|-]*$/) break
                        n = split($i, w, "|")
                        for (j = 1; j <= n; j++) print w[j]
                        break
                }
        }' | sort -u > "$T/subs.help"
awk '/^\.Sh / { syn = ($2 == "SYNOPSIS") }
     syn && /^\.Nm/ { seen = 0 }
     syn && /^\.Cm / && !seen { seen = 1; for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]/) print $i }' \
        "$TOP/man/traceql.1" | sort -u > "$T/subs.man"
check_eq man-traceql-subcommands-parsed "yes" "$(grep -qx import "$T/subs.help" && echo yes)"
# sources and forget (a usage line and a SYNOPSIS block each)
check_eq man-traceql-subcommands-sources-forget "forget sources|forget sources" \
        "$(grep -x -e forget -e sources "$T/subs.help" | tr '\n' ' ' | sed 's/ $//')|$(
        grep -x -e forget -e sources "$T/subs.man" | tr '\n' ' ' | sed 's/ $//')"
compare man-traceql-subcommands "$T/subs.help" "$T/subs.man"

"$B/traceql" --help > "$T/tq.txt"
bad=
for s in $(sort -u "$T/subs.help" "$T/subs.man"); do
        rc=0
        "$B/traceql" "$s" --help > "$T/sub.txt" 2>&1 || rc=$?
        [ $rc -eq 0 ] && [ -s "$T/sub.txt" ] || bad="$bad $s:$rc"
        cat "$T/sub.txt" >> "$T/tq.txt"
done
check_eq man-traceql-subcommand-help "" "$bad"
helpopts < "$T/tq.txt" > "$T/tq.help"
manopts "$TOP/man/traceql.1" > "$T/tq.man"
manopts "$TOP/man/traceql.1" 1 > "$T/tq.desc"
check_eq man-traceql-parsed "yes yes" "$(grep -qx -- --db "$T/tq.help" && echo yes) $(
        grep -qx -- --db "$T/tq.man" && echo yes)"
compare man-traceql "$T/tq.help" "$T/tq.man" "$T/tq.desc"

# Every line of the help texts fits 80 columns (three usage lines of
# traceql's and one of leaks' were 81 to 86 wide).  The usage a usage error
# prints is the same text.  Tabs are not allowed: their width is the
# terminal's.
"$B/tracegen" --help > "$T/all.txt"
cat "$T/tq.txt" >> "$T/all.txt"
check_eq help-texts-found "yes" "$(grep -q '^Usage: tracegen' "$T/all.txt" && grep -q 'traceql ctl PID' "$T/all.txt" &&
        grep -q '^usage: traceql .* leaks' "$T/all.txt" && echo yes)"
check_eq help-width-80 "" "$(awk '/\t/ || length > 80 { print length ": " $0 }' "$T/all.txt")"

# Per subcommand, the options of its usage lines in `traceql --help` are the
# options of its SYNOPSIS blocks in traceql(1): the comparisons above are of
# the union, which hid a usage line that lacked an option another line had
# (leaks and pairs showed no --format).  One "SUB OPTION" line each, SUB '-'
# for the SQL and --help forms; alternatives (events|losses) each get one.
# usage_subopts: those lines of the usage lines of a --help text on stdin.
usage_subopts() {
        awk '
                function flush(   k, j, s) {
                        k = split(sc, s, "|")
                        for (j = 1; j <= k; j++) printf "%s", opts == "" ? "" : opts_for(s[j])
                }
                function opts_for(name,   out, m, o, i) {
                        m = split(opts, o, " "); out = ""
                        for (i = 1; i <= m; i++) out = out name " " o[i] "\n"
                        return out
                }
                /^(usage:)? *traceql / {
                        flush(); opts = ""; inu = 1
                        l = $0; sub(/^(usage:)? *traceql */, "", l)
                        while (gsub(/\[[^][]*\]/, "", l)) ;
                        split(l, w, " "); sc = w[1] ~ /^[a-z][a-z0-9|-]*$/ ? w[1] : "-"
                }
                /^[^ ]/ && !/^(usage:)? *traceql / { inu = 0 }
                inu {
                        t = $0
                        while (match(t, /(^|[][ ,|(])--?[A-Za-z][A-Za-z0-9-]*/)) {
                                o = substr(t, RSTART, RLENGTH); sub(/^[][ ,|(]*/, "", o)
                                opts = opts " " o
                                t = substr(t, RSTART + RLENGTH)
                        }
                }
                END { flush() }' | sort -u
}
"$B/traceql" --help | usage_subopts > "$T/sub.help"
awk '   function flush(   k, j, s, m, o, i) {
                k = split(sc, s, " "); m = split(opts, o, " ")
                for (j = 1; j <= k; j++) for (i = 1; i <= m; i++) print s[j], o[i]
                sc = "-"; opts = ""; seen = 0
        }
        /^\.Sh / { if (syn) flush(); syn = ($2 == "SYNOPSIS") }
        syn && /^\.Nm/ { flush() }
        syn && /^\.Cm / && !seen {
                seen = 1; sc = ""
                for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]/) sc = sc " " $i
        }
        syn && /^\./ {
                l = $0; gsub(/\\&/, "", l); gsub(/\\-/, "-", l)
                n = split(l, w, " "); infl = 0
                for (i = 1; i <= n; i++) {
                        x = w[i]; sub(/^\./, "", x)
                        if (x == "Fl") { infl = 1; continue }
                        if (x ~ /^[A-Z][a-z][a-z]?$/) { infl = 0; continue }
                        if (infl && x ~ /^-?[A-Za-z0-9]/) opts = opts " -" x
                }
        }' "$TOP/man/traceql.1" | sort -u > "$T/sub.man"
check_eq man-traceql-per-subcommand-parsed "yes yes" "$(grep -qx 'import --follow' "$T/sub.help" &&
        grep -qx 'losses --no-sync' "$T/sub.help" && echo yes) $(grep -qx 'import --follow' "$T/sub.man" &&
        grep -qx 'losses --no-sync' "$T/sub.man" && echo yes)"
check_eq man-traceql-per-subcommand-sources-forget "forget --db,sources --db,sources --format|forget --db,sources --db,sources --format" \
        "$(grep -E '^(sources|forget) ' "$T/sub.help" | tr '\n' ',' | sed 's/,$//')|$(
        grep -E '^(sources|forget) ' "$T/sub.man" | tr '\n' ',' | sed 's/,$//')"
check_eq man-traceql-per-subcommand-help-in-man "" "$(comm -23 "$T/sub.help" "$T/sub.man" | tr '\n' ',' | sed 's/,$//')"
check_eq man-traceql-per-subcommand-man-in-help "" "$(comm -13 "$T/sub.help" "$T/sub.man" | tr '\n' ',' | sed 's/,$//')"
# A subcommand's own --help (leaks, pairs, ctl print theirs) against its
# blocks too.
own=
for s in $(sort -u "$T/subs.help" "$T/subs.man"); do
        "$B/traceql" "$s" --help > "$T/own.txt" 2>&1 || true
        "$B/traceql" --help | cmp -s - "$T/own.txt" && continue
        own="$own $s"
        usage_subopts < "$T/own.txt" | grep "^$s " > "$T/own.help" || true
        grep "^$s " "$T/sub.man" > "$T/own.man" || true
        check_eq "man-traceql-$s-help-synopsis" "" "$(comm -3 "$T/own.help" "$T/own.man" | tr -d '\t' | tr '\n' ',' | sed 's/,$//')"
done
check_eq man-traceql-own-help-found "ctl leaks pairs" "$(echo $own)"

# Every subcommand is described (an ".It Cm SUB" entry of the Subcommands
# list, or the ".Cm SUB" that opens "Live control", ctl's) and shown in
# EXAMPLES (a line running "traceql ... SUB", the first bare word before any
# quoted SQL): losses and ctl had no example.
awk '/^\.S[hs] / { ss = $0; depth = 0; first = 1; next }
     ss == ".Ss Subcommands" && /^\.Bl/ { depth++ }
     ss == ".Ss Subcommands" && /^\.El/ { depth-- }
     ss == ".Ss Subcommands" && depth == 1 && /^\.It Cm [a-z]/ { print $3 }
     ss == ".Ss Live control" && first && /^\.Cm [a-z]/ { print $2 }
     /^\./ && ss == ".Ss Live control" { first = 0 }' "$TOP/man/traceql.1" | sort -u > "$T/subs.desc"
awk '/^\.Sh / { e = ($2 == "EXAMPLES") } e && /^(\.Dl )?traceql / {
        sub(/^\.Dl /, "")
        for (i = 2; i <= NF && $i !~ /^["\047]/; i++) if ($i ~ /^[a-z]+$/) { print $i; break }
     }' "$TOP/man/traceql.1" | sort -u > "$T/subs.ex"
check_eq man-traceql-subcommands-parsed-desc-ex "yes yes" "$(grep -qx ctl "$T/subs.desc" &&
        grep -qx forget "$T/subs.desc" && echo yes) $(grep -qx leaks "$T/subs.ex" && echo yes)"
check_eq man-traceql-subcommands-described "" "$(comm -23 "$T/subs.help" "$T/subs.desc" | tr '\n' ' ' | sed 's/ $//')"
check_eq man-traceql-subcommands-examples "" "$(comm -23 "$T/subs.help" "$T/subs.ex" | tr '\n' ' ' | sed 's/ $//')"

# The parser itself, on a made-up page: it must see -x, --long, both names of
# a pair, the synopsis, and nothing from running text.
cat > "$T/x.1" <<'MAN'
.Sh SYNOPSIS
.Nm
.Op Fl \-alpha Ar n | Fl \-beta Ns = Ns Ar m
.Fl -help | -version
.Sh DESCRIPTION
Link with
.Fl lfoo .
.Bl -tag -width Ds
.It Fl g , Fl \-gamma Ns = Ns Ar x
.It Fl \-since Ar t , Fl \-until Ar t
.El
MAN
check_eq man-parser "--alpha --beta --gamma --help --since --until --version -g" \
        "$(manopts "$T/x.1" | tr '\n' ' ' | sed 's/ $//')"
check_eq man-parser-described "--gamma --since --until -g" \
        "$(manopts "$T/x.1" 1 | tr '\n' ' ' | sed 's/ $//')"
check_eq help-parser "--beta --gamma -a" \
        "$(printf '  -a, --gamma=X  non-option and --beta[=Y]\n  TRACE-EVENTS\n' | helpopts | tr '\n' ' ' | sed 's/ $//')"

if command -v mandoc > /dev/null; then
        for m in "$TOP"/man/*.[1-9]; do
                check_eq "man-lint-${m##*/}" "" "$(mandoc -Tlint -W warning "$m" 2>&1)"
        done
else
        skip man-lint "mandoc missing (packaging/install-deps.sh)"
fi
