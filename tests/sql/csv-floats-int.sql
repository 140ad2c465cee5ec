-- args: --format csv -
-- a REAL never prints as an integer: where SQLite's 15 digits do not read
-- back and the fewest that do are digits alone, ".0" follows them, as
-- SQLite writes 2.0 (they printed 1234567890123456 and 12345678901234568,
-- as the integers of columns e and f); a subnormal in the fewest digits, as
-- in JSON (5e-324, not SQLite's 4.94065645841247e-324; -1e-310, not
-- -9.99999999999997e-311).
select 1234567890123456.0 as a, 12345678901234567.0 as b, -9007199254740993.0 as c,
       1e15 as d, 1234567890123456 as e, 12345678901234568 as f, 2.0 as g, 1e20 as h,
       5e-324 as i, -1e-310 as j, 1.5e-320 as k, 2.2250738585072014e-308 as l;
