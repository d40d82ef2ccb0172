package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.out.NoticeOutbox;
import buzz.scheduled.application.port.out.NoticeOutboxContract;
import buzz.scheduled.domain.notice.MessageOutcome;
import buzz.scheduled.domain.notice.NoticeChoice;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The notice outbox contract against PostgreSQL, where the trigger of migration V12 queues outcomes; and the trigger
 * itself: what it queues for each choice, only on a change of state, and only if the transaction commits.
 */
class PostgresNoticeOutboxTest extends NoticeOutboxContract {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @Override
    protected NoticeOutbox emptyOutbox() {
        db.truncateAllTables();
        PostgresNoticeOutbox outbox = new PostgresNoticeOutbox(db.dataSource());
        outbox.switchTo(true);
        return outbox;
    }

    @Override
    protected void messageEnded(MessageOutcome outcome) {
        NoticeRows.ended(db, outcome);
    }

    @Override
    protected void timePasses(Duration duration) {
        long micros = duration.toNanos() / 1_000;
        db.execute("UPDATE notice_outbox SET not_before = not_before - ? * interval '1 microsecond',"
                + " created_at = created_at - ? * interval '1 microsecond'", micros, micros);
        db.execute("UPDATE notice_sent SET sent_at = sent_at - ? * interval '1 microsecond'", micros);
    }

    private long queued() {
        return db.queryLong("SELECT count(*) FROM notice_outbox");
    }

    @Test
    void trigger_eachChoice_queuesFailuresUnlessNone_andPublicationsOnlyForAll() {
        PostgresOwnerSettingsStore settings = new PostgresOwnerSettingsStore(db.dataSource());
        ScheduleId neverChose = NoticeRows.pending(db, TestEvents.ALICE);
        NoticeRows.failed(db, neverChose, "access_denied", "restricted: gone", Instant.now());
        long afterDefaultFailure = queued();
        ScheduleId publishedByDefault = NoticeRows.pending(db, TestEvents.ALICE);
        NoticeRows.published(db, publishedByDefault, Instant.now());
        long afterDefaultPublication = queued();

        settings.saveNotices(TestEvents.BOB, NoticeChoice.NONE);
        NoticeRows.failed(db, NoticeRows.pending(db, TestEvents.BOB), "expired", null, Instant.now());
        long afterNone = queued();

        ScheduleId pendingBeforeAll = NoticeRows.pending(db, TestEvents.BOB);
        settings.saveNotices(TestEvents.BOB, NoticeChoice.ALL);
        ScheduleId admittedAfterAll = NoticeRows.pending(db, TestEvents.BOB);
        NoticeRows.published(db, pendingBeforeAll, Instant.now());
        NoticeRows.published(db, admittedAfterAll, Instant.now());
        long afterAll = queued();

        settings.saveNotices(TestEvents.BOB, NoticeChoice.FAILURES);
        NoticeRows.published(db, NoticeRows.pending(db, TestEvents.BOB), Instant.now());

        assertThat(afterDefaultFailure).isEqualTo(1);
        assertThat(afterDefaultPublication).isEqualTo(1);
        assertThat(afterNone).isEqualTo(1);
        assertThat(afterAll).isEqualTo(3);
        assertThat(queued()).isEqualTo(3);
        assertThat(db.queryColumn("SELECT outcome || ':' || coalesce(reason, '') || ':' || coalesce(relay_message, '')"
                + " FROM notice_outbox ORDER BY id")).containsExactly("failed:access_denied:restricted: gone",
                "published::", "published::");
    }

    @Test
    void trigger_failureRolledBack_queuesNothing_andAnUpdateThatIsNoChangeOfStateNeither() throws Exception {
        ScheduleId id = NoticeRows.pending(db, TestEvents.ALICE);
        try (Connection connection = db.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement fail = connection.prepareStatement("UPDATE scheduled_message SET state = 'failed',"
                    + " reason = 'expired', finished_at = now(), event_json = NULL WHERE id = ?")) {
                fail.setObject(1, id.value());
                fail.executeUpdate();
            }
            connection.rollback();
        }
        long afterRollback = queued();
        NoticeRows.failed(db, id, "expired", null, Instant.now());
        db.execute("UPDATE scheduled_message SET last_error = 'again', updated_at = now() WHERE id = ?", id.value());

        assertThat(afterRollback).isZero();
        assertThat(queued()).isEqualTo(1);
    }

    @Test
    void take_concurrentSenders_neverTakeTheSameOutcome() throws Exception {
        for (int i = 0; i < 40; i++) {
            messageEnded(failure(TestEvents.ALICE, FailureReason.EXPIRED, null));
        }
        NoticeOutbox other = new PostgresNoticeOutbox(db.dataSource());
        java.util.List<java.util.concurrent.Future<java.util.List<NoticeOutbox.Queued>>> takes =
                new java.util.ArrayList<>();
        try (var threads = java.util.concurrent.Executors.newFixedThreadPool(4)) {
            for (int i = 0; i < 8; i++) {
                NoticeOutbox taker = i % 2 == 0 ? outbox : other;
                takes.add(threads.submit(() -> taker.take(7, Duration.ofMinutes(2))));
            }
        }
        java.util.List<Long> ids = new java.util.ArrayList<>();
        for (var take : takes) {
            take.get().forEach(queued -> ids.add(queued.id()));
        }

        assertThat(ids).doesNotHaveDuplicates().hasSize(40);
    }
}
