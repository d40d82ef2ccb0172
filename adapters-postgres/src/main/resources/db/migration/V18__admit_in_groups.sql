-- Creates that arrive together are admitted together (docs/benchmarks.md, "Creates admitted in groups (V18)"). A
-- create alone costs PostgreSQL a statement, a plpgsql call, its locks and a commit with its WAL flush, about 1 ms of
-- CPU under 16 clients, against 0.2 ms per entry of a batch. PostgresMessageAdmission therefore hands the creates
-- that wait while an earlier call runs to one call of admit_scheduled_group, whose entries may belong to different
-- owners. It is V17's admit_scheduled_batch with the owner per entry; a batch, whose entries share one owner, keeps
-- calling that one (measured: it is about a tenth faster on 100 entries of one owner).
--
--   1. tries the locks of the entries' owners, then those of their channels, each in the order of their lock keys,
--      and waits for none: an entry whose owner's or channel's lock another transaction holds (a channel deletion at
--      work, another node's create, a batch) is answered 'busy' and left to be created alone, waiting for it. So one
--      busy lock holds up the creates that need it and not every create of the group, and a group never waits in a
--      cycle. The entries it decides have their owner's and channel's locks, so nothing adds to their counts below
--      while the call runs;
--   2. counts each owner's pending messages once, and finds in one statement, for every entry, the message its
--      owner's idempotency key already names, its channel's tombstone, and its owner's and everyone's pending messages
--      due in its channel window;
--   3. goes through the entries in order, adding the entries admitted before each one to its counts (its owner's
--      pending messages, its owner's messages in its channel window, everyone's in that window) and their keys to the
--      stored ones, so each entry is answered as if the entries had been created one after the other;
--   4. stores the admitted entries with one INSERT … SELECT per table, in one statement.

/* [jooq ignore start] */
-- Entries in order, each with its owner (times in microseconds since the epoch): one row per entry, as
-- admit_scheduled_message would answer it had the entries been created one after the other, or 'busy' for an entry
-- whose owner's or channel's lock another transaction holds.
CREATE FUNCTION admit_scheduled_group(
    p_owner_lock integer, p_channel_lock integer, p_owners varchar[],
    p_ids uuid[], p_channels varchar[], p_revisions integer[], p_states varchar[], p_event_ids varchar[],
    p_event_jsons text[], p_due bigint[], p_created bigint[], p_keys varchar[], p_window_starts bigint[],
    p_window_ends bigint[], p_series_ids uuid[],
    p_max_pending integer, p_max_owner_in_window integer, p_max_in_window integer)
    RETURNS TABLE (outcome text, existing_id uuid, existing_event_id varchar)
    LANGUAGE plpgsql VOLATILE AS
$$
DECLARE
    n integer := coalesce(array_length(p_ids, 1), 0);
    -- the distinct owners and their pending messages, raised as their entries are admitted
    owners varchar[];
    pendings bigint[];
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
    -- the entries admitted so far: positions, 'owner key', 'window-start channel' and 'owner window-start channel'
    -- (an owner is 64 hex digits and a window start a number, so neither text can be read two ways)
    admitted integer[] := '{}';
    admitted_keys text[] := '{}';
    admitted_windows text[] := '{}';
    admitted_owner_windows text[] := '{}';
    -- the lock keys another transaction holds
    busy_owners integer[] := '{}';
    busy_channels integer[] := '{}';
    earlier integer;
    owner_at integer;
    window_key text;
BEGIN
    SELECT coalesce(array_agg(o.k), '{}') INTO busy_owners
      FROM (SELECT DISTINCT hashtext(owner) AS k FROM unnest(p_owners) AS owner ORDER BY k) AS o
     WHERE NOT pg_try_advisory_xact_lock(p_owner_lock, o.k);
    SELECT coalesce(array_agg(c.k), '{}') INTO busy_channels
      FROM (SELECT DISTINCT hashtext(channel) AS k FROM unnest(p_channels) AS channel ORDER BY k) AS c
     WHERE NOT pg_try_advisory_xact_lock(p_channel_lock, c.k);
    SELECT array_agg(d.owner),
           array_agg((SELECT count(*) FROM scheduled_message m WHERE m.owner = d.owner AND m.finished_at IS NULL))
      INTO owners, pendings
      FROM (SELECT DISTINCT owner FROM unnest(p_owners) AS owner) AS d;
    SELECT array_agg(k.message_id ORDER BY e.position), array_agg(k.event_id ORDER BY e.position),
           array_agg(t.channel IS NOT NULL ORDER BY e.position),
           array_agg(w.owner_count ORDER BY e.position), array_agg(w.channel_count ORDER BY e.position)
      INTO stored_ids, stored_event_ids, deleted, owner_counts, channel_counts
      FROM unnest(p_owners, p_keys, p_channels, p_window_starts, p_window_ends)
               WITH ORDINALITY AS e(owner, key, channel, window_start, window_end, position)
      -- as look-ups per entry, through the key's and the tombstone's primary keys (a join here could be planned as a
      -- hash of either whole table)
      LEFT JOIN LATERAL (SELECT k.message_id, k.event_id FROM idempotency_key k
                          WHERE k.owner = e.owner AND k.key = e.key LIMIT 1) AS k ON true
      LEFT JOIN LATERAL (SELECT t.channel FROM channel_tombstone t WHERE t.channel = e.channel LIMIT 1) AS t ON true
     CROSS JOIN LATERAL (SELECT timestamptz 'epoch' + e.window_start * interval '1 microsecond' AS window_start,
                                timestamptz 'epoch' + e.window_end * interval '1 microsecond' AS window_end) AS b
     CROSS JOIN LATERAL (
           SELECT (SELECT count(*) FROM scheduled_message m
                    WHERE m.channel = e.channel AND m.owner = e.owner AND m.finished_at IS NULL
                      AND m.due_at >= b.window_start AND m.due_at < b.window_end) AS owner_count,
                  (SELECT count(*) FROM scheduled_message m
                    WHERE m.channel = e.channel AND m.finished_at IS NULL
                      AND m.due_at >= b.window_start AND m.due_at < b.window_end) AS channel_count
           ) AS w;
    FOR i IN 1 .. n LOOP
        IF hashtext(p_owners[i]) = ANY (busy_owners) OR hashtext(p_channels[i]) = ANY (busy_channels) THEN
            outcomes[i] := 'busy';
            CONTINUE;
        END IF;
        -- a key stored before the call, or taken by an entry of the same owner admitted earlier in it
        earlier := array_position(admitted_keys, p_owners[i] || ' ' || p_keys[i]);
        existing_ids[i] := coalesce(stored_ids[i], p_ids[admitted[earlier]]);
        existing_event_ids[i] := coalesce(stored_event_ids[i], p_event_ids[admitted[earlier]]);
        owner_at := array_position(owners, p_owners[i]);
        window_key := p_window_starts[i] || ' ' || p_channels[i];
        outcomes[i] := admission_outcome(
                existing_ids[i] IS NOT NULL, existing_event_ids[i], p_event_ids[i], deleted[i],
                pendings[owner_at], p_max_pending,
                owner_counts[i] + coalesce(cardinality(
                        array_positions(admitted_owner_windows, p_owners[i] || ' ' || window_key)), 0),
                p_max_owner_in_window,
                channel_counts[i] + coalesce(cardinality(array_positions(admitted_windows, window_key)), 0),
                p_max_in_window);
        IF outcomes[i] = 'created' THEN
            pendings[owner_at] := pendings[owner_at] + 1;
            admitted[cardinality(admitted) + 1] := i;
            admitted_keys[cardinality(admitted_keys) + 1] := p_owners[i] || ' ' || p_keys[i];
            admitted_windows[cardinality(admitted_windows) + 1] := window_key;
            admitted_owner_windows[cardinality(admitted_owner_windows) + 1] := p_owners[i] || ' ' || window_key;
        END IF;
    END LOOP;
    IF cardinality(admitted) > 0 THEN
        WITH entry AS (
            SELECT a.i, timestamptz 'epoch' + p_created[a.i] * interval '1 microsecond' AS created_at
              FROM unnest(admitted) AS a(i)),
        message AS (
            INSERT INTO scheduled_message (id, owner, channel, revision, state, event_id, event_json, due_at,
                                           attempts, created_at, updated_at, series_id)
            SELECT p_ids[a.i], p_owners[a.i], p_channels[a.i], p_revisions[a.i], p_states[a.i], p_event_ids[a.i],
                   p_event_jsons[a.i], timestamptz 'epoch' + p_due[a.i] * interval '1 microsecond', 0,
                   a.created_at, a.created_at, p_series_ids[a.i]
              FROM entry AS a),
        revision AS (
            INSERT INTO scheduled_message_revision (message_id, revision, event_id, event_json, created_at)
            SELECT p_ids[a.i], p_revisions[a.i], p_event_ids[a.i], p_event_jsons[a.i], a.created_at
              FROM entry AS a)
        INSERT INTO idempotency_key (owner, key, message_id, event_id, created_at)
        SELECT p_owners[a.i], p_keys[a.i], p_ids[a.i], p_event_ids[a.i], a.created_at
          FROM entry AS a;
    END IF;
    RETURN QUERY SELECT o.outcome, o.existing_id, o.existing_event_id
                   FROM unnest(outcomes, existing_ids, existing_event_ids)
                        AS o(outcome, existing_id, existing_event_id);
END
$$;
/* [jooq ignore stop] */
