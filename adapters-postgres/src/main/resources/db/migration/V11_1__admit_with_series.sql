-- Batches (docs/scheduled-messages.md, "Batches, series and bulk cancel") admit each item with the same function as a
-- single create (V10), so the admission rules that need the database stay in one place; the function now also takes
-- the series id a series batch gives its created items (NULL for a create alone, or a batch without a series). The
-- body is V10's but for that column.

/* [jooq ignore start] */
DROP FUNCTION admit_scheduled_message(integer, integer, uuid, varchar, varchar, integer, varchar, varchar, text,
    timestamptz, timestamptz, varchar, timestamptz, timestamptz, integer, integer, integer);

CREATE FUNCTION admit_scheduled_message(
    p_owner_lock integer, p_channel_lock integer,
    p_id uuid, p_owner varchar, p_channel varchar, p_revision integer, p_state varchar, p_event_id varchar,
    p_event_json text, p_due_at timestamptz, p_created_at timestamptz, p_key varchar,
    p_window_start timestamptz, p_window_end timestamptz,
    p_max_pending integer, p_max_owner_in_window integer, p_max_in_window integer, p_series_id uuid,
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
                                   created_at, updated_at, series_id)
    VALUES (p_id, p_owner, p_channel, p_revision, p_state, p_event_id, p_event_json, p_due_at, 0,
            p_created_at, p_created_at, p_series_id);
    INSERT INTO scheduled_message_revision (message_id, revision, event_id, event_json, created_at)
    VALUES (p_id, p_revision, p_event_id, p_event_json, p_created_at);
    INSERT INTO idempotency_key (owner, key, message_id, event_id, created_at)
    VALUES (p_owner, p_key, p_id, p_event_id, p_created_at);
    outcome := 'created';
END
$$;
/* [jooq ignore stop] */
