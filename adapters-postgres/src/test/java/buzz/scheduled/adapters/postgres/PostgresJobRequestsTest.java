package buzz.scheduled.adapters.postgres;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.fakes.InMemoryJobRequests.End;
import buzz.scheduled.application.port.out.JobRequests;
import buzz.scheduled.application.port.out.JobRequestsContract;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The job request store contract against PostgreSQL, message ends written to the message table. */
class PostgresJobRequestsTest extends JobRequestsContract {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @Override
    protected JobRequests emptyStore() {
        db.truncateAllTables();
        return new PostgresJobRequests(db.dataSource());
    }

    @Override
    protected ScheduleId pendingMessage(PublicKey owner) {
        return NoticeRows.pending(db, owner);
    }

    @Override
    protected void messageEnded(ScheduleId id, End end) {
        switch (end) {
            case End.Published published -> {
                db.execute("UPDATE scheduled_message SET event_id = ? WHERE id = ?", published.eventId().hex(),
                        id.value());
                NoticeRows.published(db, id, Instant.now());
            }
            case End.Failed failed -> NoticeRows.failed(db, id, failed.reason().wireName(),
                    failed.relayWords().orElse(null), Instant.now());
            case End.Cancelled cancelled -> NoticeRows.cancelled(db, id);
        }
    }

    @Override
    protected void timePasses(Duration duration) {
        db.execute("UPDATE job_request SET lease_until = lease_until - ? * interval '1 microsecond'",
                duration.toNanos() / 1_000);
    }
}
