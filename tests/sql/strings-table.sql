-- args: --format table -
-- Strings that need escaping in table: quote, comma, newline, tab, non-ASCII,
-- invalid UTF-8, NULL; integers and the empty string.
SELECT id AS num, name, length(name) AS len, NULL AS nul, '' AS empty
FROM blk_name ORDER BY seq;
-- Wide characters take two columns, combining marks none; a header is
-- escaped as cells are.
SELECT '日本語' AS "wide
name", 1 AS n UNION ALL SELECT 'abc', 22 UNION ALL SELECT 'e' || char(769) || 'x', 3;
