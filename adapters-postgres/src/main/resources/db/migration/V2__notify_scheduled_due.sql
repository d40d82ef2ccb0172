-- Wake-up signal for the dispatcher (docs/delivery.md, "Time"): whenever rows enter `scheduled`, or a
-- scheduled row's due or retry time moves, NOTIFY channel `buzz_scheduled_due` once per statement with the
-- nearest "not before" time among those rows (coalesce(retry_at, due_at)) as payload, written as Unix epoch
-- milliseconds. The dispatcher decides whether that is nearer than what it is sleeping for. NOTIFY is
-- delivered at commit, so a listener never hears about work it cannot yet see.

/* [jooq ignore start] */
CREATE FUNCTION scheduled_message_notify_due() RETURNS trigger
    LANGUAGE plpgsql AS
$$
DECLARE
    nearest timestamptz;
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT min(coalesce(n.retry_at, n.due_at)) INTO nearest
          FROM new_rows n
         WHERE n.state = 'scheduled';
    ELSE
        SELECT min(coalesce(n.retry_at, n.due_at)) INTO nearest
          FROM new_rows n
          JOIN old_rows o ON o.id = n.id
         WHERE n.state = 'scheduled'
           AND (o.state <> 'scheduled'
                OR o.due_at <> n.due_at
                OR o.retry_at IS DISTINCT FROM n.retry_at);
    END IF;
    IF nearest IS NOT NULL THEN
        PERFORM pg_notify('buzz_scheduled_due', floor(extract(epoch FROM nearest) * 1000)::bigint::text);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER scheduled_message_notify_due_insert
    AFTER INSERT ON scheduled_message
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduled_message_notify_due();

CREATE TRIGGER scheduled_message_notify_due_update
    AFTER UPDATE ON scheduled_message
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduled_message_notify_due();
/* [jooq ignore stop] */
