-- args: --format jsonl -
-- jsonl as json (json-floats-int): a REAL never prints as an integer.
select 2.0 as a, -0.0 as b, 1234567890123456.0 as c, 7 as d;
