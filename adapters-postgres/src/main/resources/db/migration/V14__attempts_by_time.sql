-- The operator's view counts the retried delivery attempts of the last hour (GET /v1/admin/stats,
-- throughput.retried_last_hour): an index by time keeps that a short range scan however long the history is.
-- Only retries and failures write to delivery_attempt, so the first-try hot path pays nothing for it.
CREATE INDEX delivery_attempt_recorded_idx ON delivery_attempt (recorded_at);
