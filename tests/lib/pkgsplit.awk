# pkgsplit.awk - which package an installed file belongs to, the split that
# packaging/debian and packaging/tracejournal.spec make: the runtime library
# alone; the header, static library, .so link, pkg-config file and the page
# of section 3 for development; everything else (programs, completion, pages
# of sections 1, 5 and 7: traceql(1) and trace-events(5) refer to
# tracejournal(7) for the journal fields) in the tools package.  Input: one path a line;
# output: "PACKAGE-KIND path" with KIND lib, dev or tools.  Used by
# tests/t-deb.sh and tests/t-rpm.sh.
{
        if ($0 ~ /\/libtracejournal\.so\.[0-9]/) k = "lib"
        else if ($0 ~ /^\/usr\/include\// || $0 ~ /\.a$/ || $0 ~ /\/libtracejournal\.so$/ ||
                 $0 ~ /\/pkgconfig\// || $0 ~ /\/man\/man3\//) k = "dev"
        else k = "tools"
        print k, $0
}
