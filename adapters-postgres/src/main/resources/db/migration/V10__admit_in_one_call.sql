-- A create's admission as one call (docs/benchmarks.md, "Admission through `serve`"): the owner lock, the
-- idempotency-key lookup, the channel lock, the tombstone, the pending and channel-window limits and the three
-- inserts run inside the database, so a create is one statement and one round trip instead of eleven. Each
-- statement of a VOLATILE plpgsql function takes a fresh snapshot under READ COMMITTED, so the counts read after
-- a lock see every create committed before the lock was granted: the same guarantees as the statements it
-- replaces. The caller passes the lock namespaces and the limits, so their values live in one place (the store and
-- its CreateLimits); this function is the one place that compares a create against them.
-- Outcomes: created, replayed (same key, same event: existing_id names the message), idempotency_conflict
-- (same key, another event: existing_id and existing_event_id), channel_deleted, too_many_pending,
-- owner_window_full, channel_window_full.

/* [jooq ignore start] */
CREATE FUNCTION admit_scheduled_message(
    p_owner_lock integer, p_channel_lock integer,
    p_id uuid, p_owner varchar, p_channel varchar, p_revision integer, p_state varchar, p_event_id varchar,
    p_event_json text, p_due_at timestamptz, p_created_at timestamptz, p_key varchar,
    p_window_start timestamptz, p_window_end timestamptz,
    p_max_pending integer, p_max_owner_in_window integer, p_max_in_window integer,
    OUT outcome text, OUT existing_id uuid, OUT existing_event_id varchar)
    LANGUAGE plpgsql VOLATILE AS
$$
BEGIN
    -- One create at a time per owner (key and pending count) and per channel (window counts); owner first.
    PERFORM pg_advisory_xact_lock(p_owner_lock, hashtext(p_owner));
    SELECT k.message_id, k.event_id INTO existing_id, existing_event_id
      FROM idempotency_key k WHERE k.owner = p_owner AND k.key = p_key;
    IF FOUND THEN
        outcome := CASE WHEN existing_event_id = p_event_id THEN 'replayed' ELSE 'idempotency_conflict' END;
        RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(p_channel_lock, hashtext(p_channel));
    IF EXISTS (SELECT 1 FROM channel_tombstone t WHERE t.channel = p_channel) THEN
        outcome := 'channel_deleted';
        RETURN;
    END IF;
    IF (SELECT count(*) FROM scheduled_message m WHERE m.owner = p_owner AND m.finished_at IS NULL)
           >= p_max_pending THEN
        outcome := 'too_many_pending';
        RETURN;
    END IF;
    IF (SELECT count(*) FROM scheduled_message m
         WHERE m.channel = p_channel AND m.owner = p_owner AND m.finished_at IS NULL
           AND m.due_at >= p_window_start AND m.due_at < p_window_end) >= p_max_owner_in_window THEN
        outcome := 'owner_window_full';
        RETURN;
    END IF;
    IF (SELECT count(*) FROM scheduled_message m
         WHERE m.channel = p_channel AND m.finished_at IS NULL
           AND m.due_at >= p_window_start AND m.due_at < p_window_end) >= p_max_in_window THEN
        outcome := 'channel_window_full';
        RETURN;
    END IF;
    INSERT INTO scheduled_message (id, owner, channel, revision, state, event_id, event_json, due_at, attempts,
                                   created_at, updated_at)
    VALUES (p_id, p_owner, p_channel, p_revision, p_state, p_event_id, p_event_json, p_due_at, 0,
            p_created_at, p_created_at);
    INSERT INTO scheduled_message_revision (message_id, revision, event_id, event_json, created_at)
    VALUES (p_id, p_revision, p_event_id, p_event_json, p_created_at);
    INSERT INTO idempotency_key (owner, key, message_id, event_id, created_at)
    VALUES (p_owner, p_key, p_id, p_event_id, p_created_at);
    outcome := 'created';
END
$$;
/* [jooq ignore stop] */
