-- NIP-17 notices to owners (docs/nostr.md): each owner's choice, and an outbox written by the database itself in the
-- same transaction as the outcome it reports, whichever statement made it (the finishing write, the pre-send access
-- check, a channel deletion, a member removal). A notice is therefore never lost between the outcome and the sender,
-- and never made for a message that did not reach that outcome.

-- The owner's choice: 'none', 'failures' (what an owner without a row gets) or 'all' (failures and publications).
CREATE TABLE owner_settings (
    owner      varchar(64) NOT NULL,
    notices    varchar     NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT owner_settings_pk PRIMARY KEY (owner),
    CONSTRAINT owner_settings_owner_hex CHECK (owner ~ '^[0-9a-f]{64}$'),
    CONSTRAINT owner_settings_notices_known CHECK (notices IN ('none', 'failures', 'all'))
);

-- Whether notices are on (BUZZ_NOTICES): serve writes it at every start, so with notices off nothing is queued and
-- switching them on later does not send news of old failures. One row; no row reads as off.
CREATE TABLE notice_switch (
    singleton boolean NOT NULL DEFAULT true,
    enabled   boolean NOT NULL,
    CONSTRAINT notice_switch_pk PRIMARY KEY (singleton),
    CONSTRAINT notice_switch_one_row CHECK (singleton)
);
INSERT INTO notice_switch (singleton, enabled) VALUES (true, false);

-- Set for pending messages of owners who chose 'all', so that only their publications run the notice trigger: the
-- delivery path's publish write stays as cheap as before for everyone else. Not in any index (claims stay HOT).
ALTER TABLE scheduled_message ADD COLUMN notify_published boolean NOT NULL DEFAULT false;

-- One row per outcome to tell, with the facts of the message at that moment (the notice says which message, when it
-- was due and why it failed even after the message itself is pruned). not_before is both the retry time and the
-- sender's lease: a sender that takes rows moves it ahead, and marks them sent only once the relay took the notice,
-- so a notice is sent at least once.
CREATE TABLE notice_outbox (
    id             bigint GENERATED ALWAYS AS IDENTITY,
    owner          varchar(64) NOT NULL,
    message_id     uuid        NOT NULL,
    outcome        varchar     NOT NULL,
    reason         varchar,
    channel        varchar     NOT NULL,
    event_id       varchar(64) NOT NULL,
    due_at         timestamptz NOT NULL,
    relay_message  text,
    finished_at    timestamptz NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    not_before     timestamptz NOT NULL DEFAULT now(),
    attempts       integer     NOT NULL DEFAULT 0,
    last_error     text,
    sent_at        timestamptz,
    CONSTRAINT notice_outbox_pk PRIMARY KEY (id),
    CONSTRAINT notice_outbox_outcome_known CHECK (outcome IN ('published', 'failed')),
    CONSTRAINT notice_outbox_reason_iff_failed CHECK ((outcome = 'failed') = (reason IS NOT NULL))
);

-- Sent notices, one row per gift wrap, for the per-owner rate bound (counted over the last hour).
CREATE TABLE notice_sent (
    owner    varchar(64) NOT NULL,
    sent_at  timestamptz NOT NULL DEFAULT now(),
    wrap_id  varchar(64) NOT NULL
);

/* [jooq ignore start] */
CREATE INDEX notice_outbox_unsent_idx ON notice_outbox (not_before, id) WHERE sent_at IS NULL;
CREATE INDEX notice_outbox_created_idx ON notice_outbox (created_at);
CREATE INDEX notice_sent_owner_idx ON notice_sent (owner, sent_at);

CREATE FUNCTION scheduled_message_outcome_notice() RETURNS trigger
    LANGUAGE plpgsql AS
$$
DECLARE
    choice varchar;
BEGIN
    IF NOT coalesce((SELECT enabled FROM notice_switch WHERE singleton), false) THEN
        RETURN NULL;
    END IF;
    SELECT notices INTO choice FROM owner_settings WHERE owner = NEW.owner;
    choice := coalesce(choice, 'failures');
    IF choice = 'none' OR (NEW.state = 'published' AND choice <> 'all') THEN
        RETURN NULL;
    END IF;
    INSERT INTO notice_outbox (owner, message_id, outcome, reason, channel, event_id, due_at, relay_message,
                               finished_at)
    VALUES (NEW.owner, NEW.id, NEW.state, NEW.reason, NEW.channel, NEW.event_id, NEW.due_at, NEW.last_error,
            coalesce(NEW.finished_at, now()));
    RETURN NULL;
END
$$;

CREATE TRIGGER scheduled_message_failed_notice
    AFTER UPDATE ON scheduled_message
    FOR EACH ROW
    WHEN (NEW.state = 'failed' AND OLD.state <> 'failed')
    EXECUTE FUNCTION scheduled_message_outcome_notice();

CREATE TRIGGER scheduled_message_published_notice
    AFTER UPDATE ON scheduled_message
    FOR EACH ROW
    WHEN (NEW.state = 'published' AND OLD.state <> 'published' AND NEW.notify_published)
    EXECUTE FUNCTION scheduled_message_outcome_notice();

-- New messages of owners who chose 'all' are marked at admission; a change of choice re-marks the owner's pending
-- messages in the same transaction (PostgresNoticeStore).
CREATE FUNCTION scheduled_message_mark_notify_published() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    NEW.notify_published := EXISTS (SELECT 1 FROM owner_settings s WHERE s.owner = NEW.owner AND s.notices = 'all');
    RETURN NEW;
END
$$;

CREATE TRIGGER scheduled_message_mark_notify_published
    BEFORE INSERT ON scheduled_message
    FOR EACH ROW
    EXECUTE FUNCTION scheduled_message_mark_notify_published();
/* [jooq ignore stop] */
