-- args: --format jsonl -
-- REGEXP through PCRE2: events and messages by pattern.
SELECT seq, event FROM events WHERE event REGEXP '^virtio_blk_(handle_write|rw_complete)$' AND pid = 100 ORDER BY seq;
SELECT count(*) AS n FROM events WHERE message REGEXP 'ret -\d+';
SELECT count(*) AS n FROM blk_name WHERE name REGEXP '(?i)CAFÉ';
-- Patterns that are not constants (a column, a CTE): each is compiled once
-- and kept; 20 different ones, more than the 16 kept, each used by every row.
WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 18),
     p(k, pat) AS (SELECT 1, '^virtio_blk_' UNION ALL SELECT 2, 'complete$'
                   UNION ALL SELECT v + 2, '^nomatch' || v || '$' FROM n)
SELECT k, count(e.id) AS n FROM p LEFT JOIN events e ON e.event REGEXP p.pat
GROUP BY k HAVING k <= 3 OR n > 0 ORDER BY k;
-- A group repeated over a long subject: more backtracking than the JIT's
-- stack holds, which the interpreter answers.
SELECT printf('%.*c', 100000, 'a') REGEXP '^(a|b)*$' AS long_subject;
