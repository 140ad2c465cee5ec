-- args: --format json -
-- A statement that fails after two rows were printed: the array is closed
-- before the error, so standard output is whole JSON; exit 1, and the
-- statement after it does not run.
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3)
SELECT CASE WHEN x < 3 THEN x ELSE abs(-9223372036854775807 - 1) END AS v FROM c;
SELECT 'not run' AS v;
