-- args: --format csv -
-- PCRE2's interpreter, which takes over from the JIT on a long subject,
-- backtracks on the heap: at most 256 MiB of it (PCRE2's own default is
-- 20 GB).  '^(a|b)*$' on 1 MB of a's needs more: an error naming the pattern
-- and the limit.
SELECT replace(hex(zeroblob(500000)), '0', 'a') REGEXP '^(a|b)*$' AS m;
