-- The operator's view (GET /v1/admin/stats, GET /v1/admin/messages, the /admin page).
--
-- last_error keeps the relay's (or the sidecar's) words on the latest failed or retried attempt, such as
-- "blocked: not a member of this group", so an operator can tell one relay_rejected from another. It is
-- metadata, never event content, and is cleared by nothing: a later success simply leaves the last words of the
-- attempt before it.
ALTER TABLE scheduled_message ADD COLUMN last_error text;

-- Recent outcomes (lateness, throughput, latest failures) are read by the time a row ended; the terminal index
-- (finished_at WHERE state IN terminal states) already serves those reads.
