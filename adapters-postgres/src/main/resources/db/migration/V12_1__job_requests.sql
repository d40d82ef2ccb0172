-- NIP-90 kind-5905 requests the front door handled (docs/nostr.md): one row per request id, so a request seen again
-- (a reconnect's catch-up, another node, a relay's re-send) is never admitted twice, and the message it made is
-- followed to its end for the kind-6905 result or the kind-7000 error. A kind-5 deletion that arrives before its
-- request leaves a 'deleted' row, so the request is not admitted when it comes.
CREATE TABLE job_request (
    request_id    varchar(64) NOT NULL,
    requester     varchar(64) NOT NULL,
    received_at   timestamptz NOT NULL DEFAULT now(),
    -- Whether the request was encrypted (NIP-44 or NIP-04): the answers are then NIP-44 encrypted to the requester.
    encrypted     boolean     NOT NULL,
    status        varchar     NOT NULL,
    message_id    uuid,
    -- When the final answer (6905 result, 7000 error, or nothing for a cancel) was given; lease_until keeps other
    -- nodes off a request whose answer is being published.
    answered_at   timestamptz,
    lease_until   timestamptz,
    CONSTRAINT job_request_pk PRIMARY KEY (request_id),
    CONSTRAINT job_request_id_hex CHECK (request_id ~ '^[0-9a-f]{64}$'),
    CONSTRAINT job_request_requester_hex CHECK (requester ~ '^[0-9a-f]{64}$'),
    CONSTRAINT job_request_status_known CHECK (status IN ('admitted', 'refused', 'deleted')),
    CONSTRAINT job_request_message_iff_admitted CHECK ((status = 'admitted') = (message_id IS NOT NULL))
);

/* [jooq ignore start] */
-- The outcome poll walks only requests whose message has not been answered for yet.
CREATE INDEX job_request_open_idx ON job_request (message_id) WHERE status = 'admitted' AND answered_at IS NULL;
-- A kind-5 deletion finds the requester's admitted request by id (the primary key); the pruning walks by age.
CREATE INDEX job_request_received_idx ON job_request (received_at);
/* [jooq ignore stop] */
