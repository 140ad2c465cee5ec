-- args: --format json -
-- a subnormal REAL holds fewer digits than 15: 5e-324, not
-- 4.94065645841247e-324 (what it printed before), nor 1.49998330077402e-320
-- for 1.5e-320; -0.0 keeps its sign.
select 5e-324 as a, 1.5e-320 as b, -1e-310 as c, 2.2250738585072014e-308 as d, -0.0 as e;
