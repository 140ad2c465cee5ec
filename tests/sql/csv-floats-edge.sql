-- args: --format csv -
-- -0.0, which SQLite writes "0.0" (read back equal, but not the same), is
-- "-0.0"; 0.0 stays "0.0".
select -0.0 as a, 0.0 as b, -(0.0) as c;
