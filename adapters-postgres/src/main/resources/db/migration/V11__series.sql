-- Series (docs/scheduled-messages.md, "Batches, series and bulk cancel"): a batch created with "series": true gives
-- every message it admits one series id, chosen by the sidecar. A series is listed, summed up and cancelled as one,
-- always within one owner's messages, so the index leads with the owner. It holds only messages of a series
-- (most messages have none) and no column a claim changes, so claims stay HOT updates (V4).
ALTER TABLE scheduled_message ADD COLUMN series_id uuid;

/* [jooq ignore start] */
CREATE INDEX scheduled_message_owner_series_idx ON scheduled_message (owner, series_id, due_at, id)
    WHERE series_id IS NOT NULL;
/* [jooq ignore stop] */
