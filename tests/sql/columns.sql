-- args: --format json -
-- Every common column of one event, through its view.
SELECT * FROM virtio_blk_rw_complete WHERE seq = 8;
