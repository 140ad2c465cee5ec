-- args: --format csv -
-- Writing without --write is refused; the rows stay.
DELETE FROM events;
