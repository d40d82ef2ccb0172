-- Claims as HOT updates (docs/delivery.md, "The hot path").
--
-- A claim moves a due row straight from `scheduled` to `sending` and sets its fencing token, lease and attempt
-- count. PostgreSQL can write that as a heap-only tuple (HOT: no new index entries, a small WAL record) only when
-- no column it changes appears in any index, neither as a key nor in a partial index's predicate. Until now
-- `state` sat in the predicate of every partial index, so each claim (and each pre-send step) wrote a new entry
-- into most of the table's indexes. Here every partial index is re-expressed on `finished_at` instead, which the
-- CHECK constraint scheduled_message_finished_at_iff_terminal ties to the state (NULL exactly while scheduled,
-- claimed or sending), and no index mentions `state`, `fencing_token`, `lease_until`, `attempts` or
-- `updated_at`. Queries say `finished_at IS NULL` / `IS NOT NULL` where they mean "pending" / "terminal", so the
-- planner can match these predicates.
--
-- The claimable index is keyed on the time a row may next be claimed, greatest(due_at, retry_at) (GREATEST
-- ignores a NULL retry_at), so rows waiting for a retry are not in the claim's path until their time comes, and
-- the next-due computation is the first entry whose row is still `scheduled`. Rows in flight stay in this index
-- (pending, already due); the claim steps over them, and there are never more of them than the dispatchers'
-- windows. The reaper walks the same index's due range, so the lease index (keyed on lease_until, which every
-- claim and renewal changes) is gone.

-- jOOQ's DDL parser (code generation) reads only the tables; the index and storage statements are PostgreSQL's.
/* [jooq ignore start] */
DROP INDEX scheduled_message_claimable_idx;
DROP INDEX scheduled_message_retry_idx;
DROP INDEX scheduled_message_lease_idx;
DROP INDEX scheduled_message_owner_pending_idx;
DROP INDEX scheduled_message_channel_pending_idx;
DROP INDEX scheduled_message_terminal_idx;

CREATE INDEX scheduled_message_claimable_idx ON scheduled_message ((greatest(due_at, retry_at)), id)
    WHERE finished_at IS NULL;

CREATE INDEX scheduled_message_owner_pending_idx ON scheduled_message (owner)
    WHERE finished_at IS NULL;

CREATE INDEX scheduled_message_channel_pending_idx ON scheduled_message (channel, due_at)
    WHERE finished_at IS NULL;

CREATE INDEX scheduled_message_terminal_idx ON scheduled_message (finished_at)
    WHERE finished_at IS NOT NULL;

-- Room on each page for the new row versions a claim writes: a HOT update needs free space on the page of the
-- version it replaces, and one claim statement updates every row of a page at once (rows due together were
-- stored together), while the versions it replaces cannot be pruned before it commits. Below half full, every
-- row of a page fits again beside itself. Applies to pages written from now on.
ALTER TABLE scheduled_message SET (fillfactor = 45);
/* [jooq ignore stop] */
