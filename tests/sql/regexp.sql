-- args: --format jsonl -
-- REGEXP through PCRE2: events and messages by pattern.
SELECT seq, event FROM events WHERE event REGEXP '^virtio_blk_(handle_write|rw_complete)$' AND pid = 100 ORDER BY seq;
SELECT count(*) AS n FROM events WHERE message REGEXP 'ret -\d+';
SELECT count(*) AS n FROM blk_name WHERE name REGEXP '(?i)CAFÉ';
