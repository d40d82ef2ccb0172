-- The due-work NOTIFY (V3) went out for every row entering `scheduled`. A transaction that notifies takes
-- PostgreSQL's one notification lock at commit and holds it until its commit record is flushed, so every create
-- committed one after another through its WAL flush (pgbench here, 16 clients, a one-row insert: about 10 000
-- commits/s without a notification, 2 800/s with one), and every node's listener read one notification per create.
--
-- A dispatcher never sleeps longer than its backstop poll, and each wake-up reads the nearest due time afresh, so a
-- row whose claimable time lies beyond every listening dispatcher's longest sleep is found by a poll in time: it
-- needs no notification. Each node's listener records that longest sleep plus a margin here (the greatest of all
-- nodes wins; PostgresDueWorkSignal), and the trigger notifies only rows claimable within it. With no row here (no
-- listener has said, as in a database only migrated), every row notifies, as before.

CREATE TABLE due_notice_horizon (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    seconds  integer NOT NULL CHECK (seconds > 0),
    updated_at timestamptz NOT NULL DEFAULT now()
);

/* [jooq ignore start] */
CREATE OR REPLACE FUNCTION scheduled_message_notify_due_row() RETURNS trigger
    LANGUAGE plpgsql AS
$$
DECLARE
    claimable timestamptz := coalesce(NEW.retry_at, NEW.due_at);
    horizon integer;
BEGIN
    SELECT h.seconds INTO horizon FROM due_notice_horizon h;
    IF horizon IS NULL OR claimable <= clock_timestamp() + make_interval(secs => horizon) THEN
        PERFORM pg_notify('buzz_scheduled_due', floor(extract(epoch FROM claimable) * 1000)::bigint::text);
    END IF;
    RETURN NULL;
END
$$;
/* [jooq ignore stop] */
