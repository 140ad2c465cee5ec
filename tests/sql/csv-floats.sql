-- args: --format csv -
-- a REAL as SQLite writes it (2.0, 1.0e-07) when that reads back as it,
-- else in the fewest digits that do: SQLite's 15 would make 0.1 + 0.2 0.3,
-- as JSON does not (json-floats).
select 0.1 as a, 1.0 / 3 as b, 2.0 as c, 12345.678 as d, 1e-7 as e,
       0.1 + 0.2 as f, 123456789.123456789 as g, 1e999 as h;
