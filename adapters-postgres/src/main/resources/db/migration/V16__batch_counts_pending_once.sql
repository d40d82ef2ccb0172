-- A batch's items went through admit_scheduled_message one call each (V11_1), and each call counted its owner's
-- pending messages row by row; a batch is one owner's, so a batch of 100 read about 5 000 rows (docs/benchmarks.md,
-- "Again at the current code, warmed up"). Now the batch counts once and passes the running count to each item's
-- call of the same function, which still makes every decision (p_owner_pending: NULL, as for a create alone, means
-- count here). The count is taken under the owner's lock, which every create and batch of the owner takes first, as
-- does an operator's requeue, the one other change that adds a pending message (PostgresOwnerMessageChanges), so
-- nothing adds to it during the batch; deliveries may end some of the owner's messages meanwhile, which only makes
-- the running count high: a batch may refuse an item a moment early, never admit one over the limit. The function's
-- body is V11_1's but for that count.

/* [jooq ignore start] */
DROP FUNCTION admit_scheduled_message(integer, integer, uuid, varchar, varchar, integer, varchar, varchar, text,
    timestamptz, timestamptz, varchar, timestamptz, timestamptz, integer, integer, integer, uuid);

CREATE FUNCTION admit_scheduled_message(
    p_owner_lock integer, p_channel_lock integer,
    p_id uuid, p_owner varchar, p_channel varchar, p_revision integer, p_state varchar, p_event_id varchar,
    p_event_json text, p_due_at timestamptz, p_created_at timestamptz, p_key varchar,
    p_window_start timestamptz, p_window_end timestamptz,
    p_max_pending integer, p_max_owner_in_window integer, p_max_in_window integer, p_series_id uuid,
    p_owner_pending integer DEFAULT NULL,
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
    IF coalesce(p_owner_pending,
                (SELECT count(*) FROM scheduled_message m WHERE m.owner = p_owner AND m.finished_at IS NULL))
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

-- A batch's items in order (times in microseconds since the epoch): one row per item, as admit_scheduled_message
-- answers it. The caller holds the owner's lock and the batch's channels' locks (PostgresMessageAdmission), taken in
-- one order for every transaction; the function takes the owner's again, which a holder passes at once.
CREATE FUNCTION admit_scheduled_batch(
    p_owner_lock integer, p_channel_lock integer, p_owner varchar,
    p_ids uuid[], p_channels varchar[], p_revisions integer[], p_states varchar[], p_event_ids varchar[],
    p_event_jsons text[], p_due bigint[], p_created bigint[], p_keys varchar[], p_window_starts bigint[],
    p_window_ends bigint[], p_series_ids uuid[],
    p_max_pending integer, p_max_owner_in_window integer, p_max_in_window integer)
    RETURNS TABLE (outcome text, existing_id uuid, existing_event_id varchar)
    LANGUAGE plpgsql VOLATILE AS
$$
DECLARE
    pending integer;
    admitted record;
BEGIN
    PERFORM pg_advisory_xact_lock(p_owner_lock, hashtext(p_owner));
    SELECT count(*) INTO pending FROM scheduled_message m WHERE m.owner = p_owner AND m.finished_at IS NULL;
    FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
        SELECT a.outcome, a.existing_id, a.existing_event_id INTO admitted
          FROM admit_scheduled_message(p_owner_lock, p_channel_lock, p_ids[i], p_owner, p_channels[i],
                   p_revisions[i], p_states[i], p_event_ids[i], p_event_jsons[i],
                   timestamptz 'epoch' + p_due[i] * interval '1 microsecond',
                   timestamptz 'epoch' + p_created[i] * interval '1 microsecond', p_keys[i],
                   timestamptz 'epoch' + p_window_starts[i] * interval '1 microsecond',
                   timestamptz 'epoch' + p_window_ends[i] * interval '1 microsecond',
                   p_max_pending, p_max_owner_in_window, p_max_in_window, p_series_ids[i], pending) AS a;
        IF admitted.outcome = 'created' THEN
            pending := pending + 1;
        END IF;
        outcome := admitted.outcome;
        existing_id := admitted.existing_id;
        existing_event_id := admitted.existing_event_id;
        RETURN NEXT;
    END LOOP;
END
$$;
/* [jooq ignore stop] */
