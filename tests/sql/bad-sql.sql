-- args: --format csv -
-- An unknown table: the error names the database.
SELECT * FROM foo;
