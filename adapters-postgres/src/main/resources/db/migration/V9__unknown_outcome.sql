-- Whether an earlier claim of the row may have reached the relay without the outcome being recorded
-- (docs/delivery.md, "Unknown outcomes"): set when a stopping node gives back a claim whose frame it wrote and
-- never heard answered. The next claim asks the relay for the event first and sends it only if the relay does not
-- have it. Never in an index, so the claim stays a HOT update
-- (migration V4); a constant default adds the column without rewriting the table.
ALTER TABLE scheduled_message ADD COLUMN outcome_unknown boolean NOT NULL DEFAULT false;
