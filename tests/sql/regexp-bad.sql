-- args: --format csv -
-- A bad pattern is an SQL error naming the pattern.
SELECT count(*) FROM events WHERE event REGEXP 'virtio_(blk';
