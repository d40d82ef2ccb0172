-- Scheduled messages: one row per message holding its current revision and state (docs/delivery.md),
-- the revision history, idempotency keys, the fencing-token sequence and channel tombstones.
--
-- Times are timestamptz. Every "is it due / has the lease expired" decision is taken with now() inside
-- the statement that acts on it (docs/delivery.md, "Time"), never with an application clock.

CREATE SEQUENCE fencing_token_seq AS bigint START WITH 1 INCREMENT BY 1 NO CYCLE;

CREATE TABLE scheduled_message (
    id            uuid        NOT NULL,
    owner         varchar(64) NOT NULL,
    channel       varchar     NOT NULL,
    revision      integer     NOT NULL,
    state         varchar     NOT NULL,
    reason        varchar,
    event_id      varchar(64) NOT NULL,
    -- The exact signed event of the current revision as received on the wire (text, not jsonb, so that
    -- nothing is re-ordered or re-escaped); NULL once purged (cancel, channel deletion, owner purge).
    event_json    text,
    -- Due time = the current event's created_at.
    due_at        timestamptz NOT NULL,
    -- "Not before": set when a transient relay answer sends the row back to scheduled.
    retry_at      timestamptz,
    fencing_token bigint,
    lease_until   timestamptz,
    attempts      integer     NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    -- When the row reached its terminal state: published (the relay's acceptance), cancelled or failed.
    finished_at   timestamptz,
    CONSTRAINT scheduled_message_pk PRIMARY KEY (id),
    CONSTRAINT scheduled_message_owner_hex CHECK (owner ~ '^[0-9a-f]{64}$'),
    CONSTRAINT scheduled_message_event_id_hex CHECK (event_id ~ '^[0-9a-f]{64}$'),
    CONSTRAINT scheduled_message_channel_present CHECK (length(channel) > 0),
    CONSTRAINT scheduled_message_current_revision_positive CHECK (revision >= 1),
    CONSTRAINT scheduled_message_attempts_non_negative CHECK (attempts >= 0),
    CONSTRAINT scheduled_message_state_known
        CHECK (state IN ('scheduled', 'claimed', 'sending', 'published', 'cancelled', 'failed')),
    CONSTRAINT scheduled_message_reason_known
        CHECK (reason IS NULL
               OR reason IN ('access_denied', 'relay_rejected', 'expired', 'channel_deleted', 'member_removed')),
    -- A reason belongs to failed rows and only to them.
    CONSTRAINT scheduled_message_reason_iff_failed CHECK ((state = 'failed') = (reason IS NOT NULL)),
    -- A claim (token + lease) exists exactly while the row is claimed or sending.
    CONSTRAINT scheduled_message_claim_iff_in_flight
        CHECK ((state IN ('claimed', 'sending')) = (fencing_token IS NOT NULL AND lease_until IS NOT NULL)),
    CONSTRAINT scheduled_message_finished_at_iff_terminal
        CHECK ((state IN ('published', 'cancelled', 'failed')) = (finished_at IS NOT NULL)),
    -- Pending rows must still hold the event they are going to publish.
    CONSTRAINT scheduled_message_pending_has_event
        CHECK (state NOT IN ('scheduled', 'claimed', 'sending') OR event_json IS NOT NULL)
);

-- The claim reads only claimable rows, oldest due time first; the partial index keeps terminal rows
-- (the vast majority after a while) out of its way (docs/failure-scenarios.md, F10).
CREATE INDEX scheduled_message_claimable_idx ON scheduled_message (due_at, id) WHERE state = 'scheduled';

-- Rows waiting for a retry: the wake-up computation needs the nearest retry time without a scan.
CREATE INDEX scheduled_message_retry_idx ON scheduled_message (retry_at) WHERE state = 'scheduled' AND retry_at IS NOT NULL;

-- The reaper looks for expired leases among in-flight rows only.
CREATE INDEX scheduled_message_lease_idx ON scheduled_message (lease_until) WHERE state IN ('claimed', 'sending');

-- Owner listing (cursor = due time, id).
CREATE INDEX scheduled_message_owner_due_idx ON scheduled_message (owner, due_at, id);

-- The per-owner pending count at admission.
CREATE INDEX scheduled_message_owner_pending_idx ON scheduled_message (owner)
    WHERE state IN ('scheduled', 'claimed', 'sending');

-- Channel deletion, member removal and the per-channel window limit look at pending rows of one channel.
CREATE INDEX scheduled_message_channel_pending_idx ON scheduled_message (channel, due_at)
    WHERE state IN ('scheduled', 'claimed', 'sending');

-- Retention pruning walks terminal rows by the time they became terminal.
CREATE INDEX scheduled_message_terminal_idx ON scheduled_message (finished_at)
    WHERE state IN ('published', 'cancelled', 'failed');

CREATE TABLE scheduled_message_revision (
    message_id    uuid        NOT NULL,
    revision      integer     NOT NULL,
    event_id      varchar(64) NOT NULL,
    -- Exact wire text of that revision's signed event; NULL once purged.
    event_json    text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT scheduled_message_revision_pk PRIMARY KEY (message_id, revision),
    CONSTRAINT scheduled_message_revision_message_fk FOREIGN KEY (message_id)
        REFERENCES scheduled_message (id) ON DELETE CASCADE,
    CONSTRAINT scheduled_message_revision_positive CHECK (revision >= 1),
    CONSTRAINT scheduled_message_revision_event_id_hex CHECK (event_id ~ '^[0-9a-f]{64}$')
);

-- Stable create retries (docs/openapi.yaml, Idempotency-Key): (owner, key) names one message; event_id is the request fingerprint.
CREATE TABLE idempotency_key (
    owner         varchar(64) NOT NULL,
    key           varchar     NOT NULL,
    message_id    uuid        NOT NULL,
    event_id      varchar(64) NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT idempotency_key_pk PRIMARY KEY (owner, key),
    CONSTRAINT idempotency_key_message_fk FOREIGN KEY (message_id)
        REFERENCES scheduled_message (id) ON DELETE CASCADE,
    CONSTRAINT idempotency_key_present CHECK (length(key) > 0)
);

CREATE INDEX idempotency_key_message_idx ON idempotency_key (message_id);

-- Deleted channels (docs/scheduled-messages.md §6): later admissions to them are refused.
CREATE TABLE channel_tombstone (
    channel       varchar     NOT NULL,
    deleted_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT channel_tombstone_pk PRIMARY KEY (channel)
);
