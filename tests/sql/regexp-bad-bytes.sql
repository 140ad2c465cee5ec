-- args: --format csv -
-- A bad pattern holding an invalid UTF-8 byte (0xff), a NUL and an escape:
-- quoted in the message as \xHH, valid UTF-8 and whole past the NUL.
SELECT count(*) FROM events WHERE event REGEXP 'virtio_' || x'ff' || char(0) || char(27) || '(blk';
