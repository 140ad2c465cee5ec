-- args: --format json -
-- a REAL in the fewest digits that read back as it (0.1, not
-- 0.10000000000000001), never as an integer (100.0, not 100: json-floats-int);
-- infinities are null.  (No huge exponents here:
-- valgrind's strtod reads 1e+300 back as another double.)
select 0.1 as a, 1.0 / 3 as b, 100.0 as c, 12345.678 as d, 2.5e-8 as e,
       0.30000000000000004 as f, 1e999 as g;
