package buzz.scheduled.adapters.postgres;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.domain.notice.MessageOutcome;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;

/** Message rows written with plain SQL for the notice and job request tests: a pending row, and its end. */
final class NoticeRows {
    private NoticeRows() {
    }

    /** Inserts a pending ({@code scheduled}) message of {@code owner}. */
    static ScheduleId pending(ScratchDatabaseExtension db, ScheduleId id, PublicKey owner, String channel, String eventId,
                              Instant dueAt) {
        db.execute("INSERT INTO scheduled_message (id, owner, channel, revision, state, event_id, event_json, due_at)"
                + " VALUES (?, ?, ?, 1, 'scheduled', ?, '{}', ?)", id.value(), owner.hex(), channel, eventId,
                Timestamp.from(dueAt));
        return id;
    }

    static ScheduleId pending(ScratchDatabaseExtension db, PublicKey owner) {
        return pending(db, new ScheduleId(UUID.randomUUID()), owner, "general",
                String.format("%064x", System.nanoTime()), Instant.now().plusSeconds(3600));
    }

    /** Ends message {@code id} as published (the event it holds), at {@code finishedAt}. */
    static void published(ScratchDatabaseExtension db, ScheduleId id, Instant finishedAt) {
        db.execute("UPDATE scheduled_message SET state = 'published', finished_at = ?, updated_at = now()"
                + " WHERE id = ?", Timestamp.from(finishedAt), id.value());
    }

    /** Ends message {@code id} as failed for {@code reason} with {@code words} as its last error. */
    static void failed(ScratchDatabaseExtension db, ScheduleId id, String reason, String words, Instant finishedAt) {
        db.execute("UPDATE scheduled_message SET state = 'failed', reason = ?, last_error = ?, finished_at = ?,"
                + " event_json = NULL, updated_at = now() WHERE id = ?", reason, words, Timestamp.from(finishedAt),
                id.value());
    }

    /** Cancels message {@code id}. */
    static void cancelled(ScratchDatabaseExtension db, ScheduleId id) {
        db.execute("UPDATE scheduled_message SET state = 'cancelled', finished_at = now(), event_json = NULL,"
                + " updated_at = now() WHERE id = ?", id.value());
    }

    /** Writes {@code outcome}'s message and ends it so (the owner is set to be told of publications too). */
    static void ended(ScratchDatabaseExtension db, MessageOutcome outcome) {
        pending(db, outcome.id(), outcome.owner(), outcome.channel().value(), outcome.eventId().hex(),
                outcome.dueAt());
        switch (outcome.result()) {
            case MessageOutcome.Result.Published published -> {
                db.execute("UPDATE scheduled_message SET notify_published = true WHERE id = ?", outcome.id().value());
                db.execute("INSERT INTO owner_settings (owner, notices) VALUES (?, 'all') ON CONFLICT (owner)"
                        + " DO UPDATE SET notices = 'all'", outcome.owner().hex());
                published(db, outcome.id(), outcome.finishedAt());
            }
            case MessageOutcome.Result.Failed failed -> failed(db, outcome.id(), failed.reason().wireName(),
                    failed.relayWords().orElse(null), outcome.finishedAt());
        }
    }
}
