-- args: --format csv -
-- two statements' results, each with its header line, are set apart by an
-- empty line; one that returns no columns prints nothing
select event, count(*) as n from events group by event order by event limit 2;
create temp table t (x);
select 1 as one, 'two' as two;
