-- args: --format csv -
-- A pattern that backtracks without end fails at PCRE2's match limit, in an
-- error naming the pattern and the limit, instead of running for ages.
SELECT printf('%.*c', 40, 'a') || 'b' REGEXP '^(a+)+$' AS m;
