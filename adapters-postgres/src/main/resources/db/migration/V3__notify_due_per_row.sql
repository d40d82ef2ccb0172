-- The due-work NOTIFY (V2) ran a plpgsql function with transition tables after every UPDATE statement on
-- scheduled_message, including the delivery path's claimed -> sending -> published writes, which never make
-- work nearer. Row-level triggers with a WHEN condition are evaluated without calling the function, so only
-- writes that put a row into (or move it within) `scheduled` pay for the notification. The payload is
-- unchanged: the row's claimable time in Unix milliseconds. PostgreSQL folds identical notifications sent in
-- one transaction.

/* [jooq ignore start] */
CREATE FUNCTION scheduled_message_notify_due_row() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    PERFORM pg_notify('buzz_scheduled_due',
                      floor(extract(epoch FROM coalesce(NEW.retry_at, NEW.due_at)) * 1000)::bigint::text);
    RETURN NULL;
END
$$;

DROP TRIGGER scheduled_message_notify_due_insert ON scheduled_message;
DROP TRIGGER scheduled_message_notify_due_update ON scheduled_message;
DROP FUNCTION scheduled_message_notify_due();

CREATE TRIGGER scheduled_message_notify_due_insert
    AFTER INSERT ON scheduled_message
    FOR EACH ROW
    WHEN (NEW.state = 'scheduled')
    EXECUTE FUNCTION scheduled_message_notify_due_row();

CREATE TRIGGER scheduled_message_notify_due_update
    AFTER UPDATE ON scheduled_message
    FOR EACH ROW
    WHEN (NEW.state = 'scheduled'
          AND (OLD.state <> 'scheduled'
               OR OLD.due_at <> NEW.due_at
               OR OLD.retry_at IS DISTINCT FROM NEW.retry_at))
    EXECUTE FUNCTION scheduled_message_notify_due_row();
/* [jooq ignore stop] */
