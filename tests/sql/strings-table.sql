-- args: --format table -
-- Strings that need escaping in table: quote, comma, newline, tab, non-ASCII,
-- invalid UTF-8, NULL; integers and the empty string.
SELECT id AS num, name, length(name) AS len, NULL AS nul, '' AS empty
FROM blk_name ORDER BY seq;
-- Wide characters take two columns, combining marks none; a header is
-- escaped as cells are.  Combining marks of the other combining blocks
-- (U+20D7 for symbols, U+1DC0 supplement, U+FE20 half marks) and emoji
-- past U+1F64F (U+1F680, U+1FA70) are measured too.
SELECT '日本語' AS "wide
name", 1 AS n UNION ALL SELECT 'abc', 22 UNION ALL SELECT 'e' || char(769) || 'x', 3
UNION ALL SELECT 'a' || char(0x20d7) || 'b' || char(0x1dc0) || 'c' || char(0xfe20), 4
UNION ALL SELECT char(0x1f680) || char(0x1fa70), 5;
-- The C1 controls (U+0080 to U+009F; U+009B is a terminal's CSI) are
-- escaped as their bytes; U+00A0 next to them is text.
SELECT 'a' || char(0x9b) || '[2J' || char(0x85) || 'b' || char(0xa0) || 'c' AS c1;
-- Zero-width format characters take no column: the word joiner U+2060 and
-- the invisible operators after it, U+FEFF (a byte order mark in a
-- message), the bidirectional embeddings and isolates U+202A..U+202E,
-- U+2066..U+206F, as U+200B..U+200F.
SELECT 'a' || char(0x2060) || 'b' || char(0x2064) AS zw, 1 AS n
UNION ALL SELECT char(0xfeff) || 'cd', 22
UNION ALL SELECT 'e' || char(0x202e) || char(0x2066) || 'f' || char(0x2069) || char(0x202c), 3;
-- The combining marks inside the wide CJK blocks take no column either:
-- kana's voicing marks U+3099, U+309A (decomposed Japanese: 'ka' U+304B
-- then U+3099 is 'ga'), the ideographic tone marks U+302A..U+302D.
SELECT char(0x304b, 0x3099) || char(0x306f, 0x309a) AS nfd, 1 AS n
UNION ALL SELECT char(0x304c, 0x3071), 22
UNION ALL SELECT char(0x4e00, 0x302a), 3;
