-- args: --format json -
-- Strings that need escaping in json: quote, comma, newline, tab, non-ASCII,
-- invalid UTF-8, NULL; integers and the empty string.
SELECT id AS num, name, length(name) AS len, NULL AS nul, '' AS empty
FROM blk_name ORDER BY seq;
