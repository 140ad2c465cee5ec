# manopts.awk - the options an mdoc page documents, one per line, as a user
# types them (-g, --group): every Fl argument in the SYNOPSIS and on the .It
# lines of the pages' lists.  Fl prefixes each of its arguments with '-'
# ("Fl -group" is --group, "Fl g , Fl \-db" are -g and --db) until the next
# macro; delimiters (| , ...) are skipped.  With -v described=1, only the
# .It lines (options that have a description).  Used by tests/t-man-options.sh.
/^\.Sh / { syn = ($2 == "SYNOPSIS") && !described }
/^\./ && (syn || /^\.It /) {
        gsub(/\\&/, ""); gsub(/\\-/, "-")
        infl = 0
        for (i = 1; i <= NF; i++) {
                w = $i
                sub(/^\./, "", w)
                if (w == "Fl") { infl = 1; continue }
                if (w ~ /^[A-Z][a-z][a-z]?$/ && w != "Fl") { infl = 0; continue }
                if (!infl || w !~ /^-?[A-Za-z0-9]/) continue
                print "-" w
        }
}
