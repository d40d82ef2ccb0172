-- The NIP-98 replay guard shared by every node and kept across restarts (docs/security-model.md): the
-- signature of each accepted Authorization header, kept until the header could no longer be accepted
-- (created_at + twice the window + 1 s). Rows past keep_until are deleted in small batches by the nodes as they
-- insert; a row past keep_until that is still there counts as forgotten.
-- The store reads and writes it with plain SQL; jOOQ's code generator (H2) cannot index bytea.
/* [jooq ignore start] */
CREATE TABLE nip98_replay (
    signature  bytea       PRIMARY KEY CHECK (octet_length(signature) = 64),
    keep_until timestamptz NOT NULL
);

CREATE INDEX nip98_replay_keep_until ON nip98_replay (keep_until);
/* [jooq ignore stop] */
