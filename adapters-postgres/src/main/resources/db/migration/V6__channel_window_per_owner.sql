-- The channel window counts per owner (docs/scheduled-messages.md §4): admission counts one owner's pending
-- messages due in one channel's 5-minute window, besides the whole channel's count. With only the (channel, due_at)
-- index that count would visit every pending row of the channel's window (up to the channel-wide cap) and read each
-- row to test its owner; this index answers it from the owner's own entries. No column a claim changes is in it,
-- so claims stay HOT updates (V4).

/* [jooq ignore start] */
CREATE INDEX scheduled_message_channel_owner_pending_idx ON scheduled_message (channel, owner, due_at)
    WHERE finished_at IS NULL;
/* [jooq ignore stop] */
