-- args: --format csv -
-- 64-bit values: stored as the same bit pattern, shown with u64() and ptr(),
-- compared with hex literals, joined exactly.
SELECT seq, req, ptr(req) AS req_hex, sector, u64(sector) AS sector_u64, nb_sectors
FROM virtio_blk_handle_write ORDER BY pid, seq;
SELECT count(*) AS n FROM virtio_blk_handle_write WHERE req = 0xffffffffffffffff AND sector = -1;
SELECT w.seq AS write_seq, c.seq AS complete_seq, ptr(w.req) AS req, c.ret
FROM virtio_blk_handle_write w JOIN virtio_blk_rw_complete c ON c.req = w.req AND c.pid = w.pid
ORDER BY w.seq;
-- Text taken as its 64-bit pattern, beyond what SQLite's conversion keeps.
SELECT u64('18446744073709551615') AS a, ptr('0xffffffffffffffff') AS b, u64('-1') AS c,
       ptr('4096') AS d, quote(u64('12abc')) AS e, quote(ptr(NULL)) AS f;
-- A real is truncated to the 64-bit value it holds, up to 2^64 (SQLite's
-- conversion stops at INT64_MAX); one outside both readings gives NULL.
SELECT u64(1e19) AS a, ptr(1.5e19) AS b, u64(-1.0) AS c, u64(2.9) AS d,
       quote(u64(18446744073709551616.0)) AS e, quote(u64(-1e19)) AS f;
-- ns_time() of a number, or of text that is one; other text (SQLite's
-- conversion reads it as 0, the epoch) and a blob give NULL.
SELECT ns_time(1700000000123456789) AS a, ns_time('-1') AS b, ns_time(1.5e9) AS c,
       quote(ns_time('abc')) AS d, quote(ns_time(x'01')) AS e, quote(ns_time(NULL)) AS f;
-- A number past what 64-bit nanoseconds hold (before 1677, after 2262) gives
-- NULL, not the time SQLite's conversion clamps it to; a real within is
-- truncated.
SELECT quote(ns_time(1e30)) AS a, quote(ns_time(-1e19)) AS b,
       quote(ns_time('99999999999999999999')) AS c, quote(ns_time(9223372036854775808.0)) AS d,
       ns_time(-9223372036854775808.0) AS e, ns_time(9.2e18) AS f;
