-- Delivery attempts (docs/delivery.md, "What an attempt leaves behind"): what an owner and an operator see of a
-- message's tries — GET /v1/scheduled-messages/{id}/attempts and GET /v1/admin/messages/{id}.
--
-- The finishing write (PostgresDeliveryStore.FINISH) adds a row for every retried or failed attempt, with the
-- relay's (or the sidecar's) words as last_error keeps them: escaped, cut to 500 characters. A publication adds no
-- row: it is read from the message itself (finished_at of a published message), so the hot path of a message
-- published at its first attempt writes nothing more than before. At most 100 rows per message are written
-- (attempt <= 100); rows go with their message (retention, purges).
CREATE TABLE delivery_attempt (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id    uuid        NOT NULL REFERENCES scheduled_message (id) ON DELETE CASCADE,
    attempt       integer     NOT NULL CHECK (attempt >= 1),
    revision      integer     NOT NULL CHECK (revision >= 1),
    recorded_at   timestamptz NOT NULL,
    outcome       text        NOT NULL CHECK (outcome IN ('retry', 'failed')),
    reason        text,
    relay_message text,
    CONSTRAINT delivery_attempt_reason_iff_failed CHECK ((outcome = 'failed') = (reason IS NOT NULL))
);

CREATE INDEX delivery_attempt_message_idx ON delivery_attempt (message_id, id);
