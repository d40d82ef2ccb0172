-- A batch decides all its entries in one function and stores the admitted ones with one statement (docs/benchmarks.md,
-- "Set-based batches (V17)"). Since V11_1 a batch called admit_scheduled_message once per entry: per entry two
-- advisory locks, five look-ups and three one-row INSERTs, about 1 ms of PostgreSQL CPU. Now admit_scheduled_batch
--
--   1. takes the owner's lock, then the locks of the entries' channels in the order of their lock keys (the order in
--      which every batch takes them; a create and a requeue take one channel's lock after the owner's, an edit or a
--      channel deletion one channel's lock alone), so nothing adds to the counts below while it runs and no two
--      transactions wait on each other in a cycle;
--   2. counts the owner's pending messages once, and finds in one statement, for every entry, the message its
--      idempotency key already names, its channel's tombstone, and the owner's and everyone's pending messages due
--      in its channel window;
--   3. goes through the entries in order, adding the entries admitted before each one to its counts and their keys to
--      the stored ones, so a batch answers as if its entries had been created one after the other;
--   4. stores the admitted entries with one INSERT … SELECT per table, in one statement.
--
-- The decision itself (which check comes first, what each limit compares) is admission_outcome, which the create
-- alone uses too: admit_scheduled_message now gathers its facts after the key in one statement and stores its rows
-- in one, and no longer takes a pending count from a caller (V16's p_owner_pending, which only the batch passed).
-- Deliveries may end some of the owner's messages while a batch runs, which only makes its counts high: an entry at
-- a limit may be refused a moment early, never admitted over it.

/* [jooq ignore start] */
-- What a create gets, from the facts its function gathered: the checks in the order of docs/openapi.yaml (the key, the
-- channel's tombstone, the owner's pending messages, the owner's and then everyone's messages in the channel window).
CREATE FUNCTION admission_outcome(
    p_key_taken boolean, p_existing_event_id varchar, p_event_id varchar, p_deleted boolean,
    p_pending bigint, p_max_pending integer, p_owner_in_window bigint, p_max_owner_in_window integer,
    p_in_window bigint, p_max_in_window integer)
    RETURNS text LANGUAGE sql IMMUTABLE AS
$$
SELECT CASE WHEN p_key_taken THEN CASE WHEN p_existing_event_id = p_event_id THEN 'replayed'
                                       ELSE 'idempotency_conflict' END
            WHEN p_deleted THEN 'channel_deleted'
            WHEN p_pending >= p_max_pending THEN 'too_many_pending'
            WHEN p_owner_in_window >= p_max_owner_in_window THEN 'owner_window_full'
            WHEN p_in_window >= p_max_in_window THEN 'channel_window_full'
            ELSE 'created' END
$$;

DROP FUNCTION admit_scheduled_message(integer, integer, uuid, varchar, varchar, integer, varchar, varchar, text,
    timestamptz, timestamptz, varchar, timestamptz, timestamptz, integer, integer, integer, uuid, integer);

-- A create alone: the owner's lock and its key (a replay answers here, holding only the owner's lock), the channel's
-- lock, one statement for the other facts, one for the three rows.
CREATE FUNCTION admit_scheduled_message(
    p_owner_lock integer, p_channel_lock integer,
    p_id uuid, p_owner varchar, p_channel varchar, p_revision integer, p_state varchar, p_event_id varchar,
    p_event_json text, p_due_at timestamptz, p_created_at timestamptz, p_key varchar,
    p_window_start timestamptz, p_window_end timestamptz,
    p_max_pending integer, p_max_owner_in_window integer, p_max_in_window integer, p_series_id uuid,
    OUT outcome text, OUT existing_id uuid, OUT existing_event_id varchar)
    LANGUAGE plpgsql VOLATILE AS
$$
DECLARE
    deleted boolean;
    pending bigint;
    owner_in_window bigint;
    in_window bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(p_owner_lock, hashtext(p_owner));
    SELECT k.message_id, k.event_id INTO existing_id, existing_event_id
      FROM idempotency_key k WHERE k.owner = p_owner AND k.key = p_key;
    IF FOUND THEN
        outcome := admission_outcome(true, existing_event_id, p_event_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(p_channel_lock, hashtext(p_channel));
    SELECT EXISTS (SELECT 1 FROM channel_tombstone t WHERE t.channel = p_channel),
           (SELECT count(*) FROM scheduled_message m WHERE m.owner = p_owner AND m.finished_at IS NULL),
           (SELECT count(*) FROM scheduled_message m
             WHERE m.channel = p_channel AND m.owner = p_owner AND m.finished_at IS NULL
               AND m.due_at >= p_window_start AND m.due_at < p_window_end),
           (SELECT count(*) FROM scheduled_message m
             WHERE m.channel = p_channel AND m.finished_at IS NULL
               AND m.due_at >= p_window_start AND m.due_at < p_window_end)
      INTO deleted, pending, owner_in_window, in_window;
    outcome := admission_outcome(false, NULL, p_event_id, deleted, pending, p_max_pending, owner_in_window,
                                 p_max_owner_in_window, in_window, p_max_in_window);
    IF outcome <> 'created' THEN
        RETURN;
    END IF;
    WITH message AS (
        INSERT INTO scheduled_message (id, owner, channel, revision, state, event_id, event_json, due_at, attempts,
                                       created_at, updated_at, series_id)
        VALUES (p_id, p_owner, p_channel, p_revision, p_state, p_event_id, p_event_json, p_due_at, 0,
                p_created_at, p_created_at, p_series_id)),
    revision AS (
        INSERT INTO scheduled_message_revision (message_id, revision, event_id, event_json, created_at)
        VALUES (p_id, p_revision, p_event_id, p_event_json, p_created_at))
    INSERT INTO idempotency_key (owner, key, message_id, event_id, created_at)
    VALUES (p_owner, p_key, p_id, p_event_id, p_created_at);
END
$$;

-- A batch's entries in order (times in microseconds since the epoch): one row per entry, as admit_scheduled_message
-- would answer it had the entries been created one after the other.
CREATE OR REPLACE FUNCTION admit_scheduled_batch(
    p_owner_lock integer, p_channel_lock integer, p_owner varchar,
    p_ids uuid[], p_channels varchar[], p_revisions integer[], p_states varchar[], p_event_ids varchar[],
    p_event_jsons text[], p_due bigint[], p_created bigint[], p_keys varchar[], p_window_starts bigint[],
    p_window_ends bigint[], p_series_ids uuid[],
    p_max_pending integer, p_max_owner_in_window integer, p_max_in_window integer)
    RETURNS TABLE (outcome text, existing_id uuid, existing_event_id varchar)
    LANGUAGE plpgsql VOLATILE AS
$$
DECLARE
    n integer := coalesce(array_length(p_ids, 1), 0);
    pending bigint;
    -- per entry, from the rows stored before the call
    stored_ids uuid[];
    stored_event_ids varchar[];
    deleted boolean[];
    owner_counts bigint[];
    channel_counts bigint[];
    -- per entry, the answer
    outcomes text[] := '{}';
    existing_ids uuid[] := '{}';
    existing_event_ids varchar[] := '{}';
    -- the entries admitted so far: positions, keys, and channel windows as 'channel window-start'
    admitted integer[] := '{}';
    admitted_keys varchar[] := '{}';
    admitted_windows text[] := '{}';
    earlier integer;
    window_key text;
    in_batch integer;
BEGIN
    PERFORM pg_advisory_xact_lock(p_owner_lock, hashtext(p_owner));
    PERFORM count(pg_advisory_xact_lock(p_channel_lock, c.k))
       FROM (SELECT DISTINCT hashtext(channel) AS k FROM unnest(p_channels) AS channel ORDER BY k) AS c;
    SELECT count(*) INTO pending FROM scheduled_message m WHERE m.owner = p_owner AND m.finished_at IS NULL;
    SELECT array_agg(k.message_id ORDER BY e.position), array_agg(k.event_id ORDER BY e.position),
           array_agg(t.channel IS NOT NULL ORDER BY e.position),
           array_agg(w.owner_count ORDER BY e.position), array_agg(w.channel_count ORDER BY e.position)
      INTO stored_ids, stored_event_ids, deleted, owner_counts, channel_counts
      FROM unnest(p_keys, p_channels, p_window_starts, p_window_ends)
               WITH ORDINALITY AS e(key, channel, window_start, window_end, position)
      LEFT JOIN idempotency_key k ON k.owner = p_owner AND k.key = e.key
      LEFT JOIN channel_tombstone t ON t.channel = e.channel
     CROSS JOIN LATERAL (
           SELECT (SELECT count(*) FROM scheduled_message m
                    WHERE m.channel = e.channel AND m.owner = p_owner AND m.finished_at IS NULL
                      AND m.due_at >= timestamptz 'epoch' + e.window_start * interval '1 microsecond'
                      AND m.due_at < timestamptz 'epoch' + e.window_end * interval '1 microsecond') AS owner_count,
                  (SELECT count(*) FROM scheduled_message m
                    WHERE m.channel = e.channel AND m.finished_at IS NULL
                      AND m.due_at >= timestamptz 'epoch' + e.window_start * interval '1 microsecond'
                      AND m.due_at < timestamptz 'epoch' + e.window_end * interval '1 microsecond') AS channel_count
           ) AS w;
    FOR i IN 1 .. n LOOP
        -- a key stored before the batch, or taken by an entry admitted earlier in it
        earlier := array_position(admitted_keys, p_keys[i]);
        existing_ids[i] := coalesce(stored_ids[i], p_ids[admitted[earlier]]);
        existing_event_ids[i] := coalesce(stored_event_ids[i], p_event_ids[admitted[earlier]]);
        window_key := p_channels[i] || ' ' || p_window_starts[i];
        in_batch := coalesce(cardinality(array_positions(admitted_windows, window_key)), 0);
        outcomes[i] := admission_outcome(existing_ids[i] IS NOT NULL, existing_event_ids[i], p_event_ids[i],
                                         deleted[i], pending, p_max_pending, owner_counts[i] + in_batch,
                                         p_max_owner_in_window, channel_counts[i] + in_batch, p_max_in_window);
        IF outcomes[i] = 'created' THEN
            pending := pending + 1;
            admitted[cardinality(admitted) + 1] := i;
            admitted_keys[cardinality(admitted_keys) + 1] := p_keys[i];
            admitted_windows[cardinality(admitted_windows) + 1] := window_key;
        END IF;
    END LOOP;
    IF cardinality(admitted) > 0 THEN
        WITH message AS (
            INSERT INTO scheduled_message (id, owner, channel, revision, state, event_id, event_json, due_at,
                                           attempts, created_at, updated_at, series_id)
            SELECT p_ids[a.i], p_owner, p_channels[a.i], p_revisions[a.i], p_states[a.i], p_event_ids[a.i],
                   p_event_jsons[a.i], timestamptz 'epoch' + p_due[a.i] * interval '1 microsecond', 0,
                   timestamptz 'epoch' + p_created[a.i] * interval '1 microsecond',
                   timestamptz 'epoch' + p_created[a.i] * interval '1 microsecond', p_series_ids[a.i]
              FROM unnest(admitted) AS a(i)),
        revision AS (
            INSERT INTO scheduled_message_revision (message_id, revision, event_id, event_json, created_at)
            SELECT p_ids[a.i], p_revisions[a.i], p_event_ids[a.i], p_event_jsons[a.i],
                   timestamptz 'epoch' + p_created[a.i] * interval '1 microsecond'
              FROM unnest(admitted) AS a(i))
        INSERT INTO idempotency_key (owner, key, message_id, event_id, created_at)
        SELECT p_owner, p_keys[a.i], p_ids[a.i], p_event_ids[a.i],
               timestamptz 'epoch' + p_created[a.i] * interval '1 microsecond'
          FROM unnest(admitted) AS a(i);
    END IF;
    RETURN QUERY SELECT o.outcome, o.existing_id, o.existing_event_id
                   FROM unnest(outcomes, existing_ids, existing_event_ids)
                        AS o(outcome, existing_id, existing_event_id);
END
$$;
/* [jooq ignore stop] */
