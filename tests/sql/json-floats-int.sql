-- args: --format json -
-- a REAL never prints as an integer, as a reader of JSON would take it: ".0"
-- follows digits alone, as SQLite writes 2.0 (they printed 2, 100, -0,
-- 1234567890123456 and 12345678901234568, as the integers of columns g and
-- h); with an exponent they stay as they are (1e+15).
select 2.0 as a, 100.0 as b, -0.0 as c, 1234567890123456.0 as d, 12345678901234567.0 as e,
       1e15 as f, 1234567890123456 as g, 12345678901234568 as h, 0.5 as i;
