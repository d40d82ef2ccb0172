package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.PostgresOwnerMessages;
import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.application.port.out.AttemptHistory;
import buzz.scheduled.application.port.out.AttemptHistoryContract;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.DeliveryStore.ClaimedMessage;
import buzz.scheduled.application.port.out.DeliveryStore.Finish;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.DeliveryAttempt;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The attempt history's contract against PostgreSQL, and what only the table shows: the relay's words cut as
 * {@code last_error} keeps them, the bound per message, and rows going with their message.
 */
class PostgresAttemptHistoryTest extends AttemptHistoryContract<PostgresOwnerMessages> {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    @Override
    protected PostgresOwnerMessages emptyStore() {
        db.truncateAllTables();
        return new PostgresOwnerMessages(db.dataSource());
    }

    @Override
    protected DeliveryStore deliveryStore() {
        return new PostgresDeliveryStore(db.dataSource());
    }

    @Override
    protected AttemptHistory attemptHistory() {
        return new PostgresAttemptHistory(db.dataSource());
    }

    @Override
    protected void deleteChannel(Channel channel) {
        db.execute("INSERT INTO channel_tombstone (channel) VALUES (?)", channel.value());
    }

    @Override
    protected void letTimePass(Duration duration) {
        db.letTimePass(duration);
    }

    @Test
    void attempts_longRelayWords_areKeptAsLastErrorKeepsThem() {
        ScheduledMessage message = createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = delivery.claim(1, LEASE).messages().get(0);
        String words = "error: " + "x".repeat(2_000) + "\u0000";

        delivery.finish(List.of(new Finish.Retry(claimed.claim(), claimed.revision(), Duration.ofSeconds(30),
                Duration.ofMinutes(15), words)));

        DeliveryAttempt attempt = attemptHistory().attempts(message.id()).get(0);
        assertThat(attempt.relayMessage()).hasValueSatisfying(recorded -> {
            assertThat(recorded).hasSize(PostgresDeliveryStore.LAST_ERROR_LENGTH);
            assertThat(recorded).isEqualTo(words.substring(0, PostgresDeliveryStore.LAST_ERROR_LENGTH));
        });
        assertThat(db.queryColumn("SELECT last_error FROM scheduled_message")).containsExactly(
                attempt.relayMessage().orElseThrow());
    }

    @Test
    void attempts_pastTheBoundPerMessage_areNotRecordedButStillRetried() {
        ScheduledMessage message = createdMessage(dueIn(Duration.ofSeconds(-60)));
        db.execute("UPDATE scheduled_message SET attempts = ?", AttemptHistory.MAX_RECORDED);
        ClaimedMessage claimed = delivery.claim(1, LEASE).messages().get(0);

        var written = delivery.finish(List.of(new Finish.Retry(claimed.claim(), claimed.revision(),
                Duration.ofSeconds(30), Duration.ofMinutes(15), "rate-limited: again"))).get(0).written();

        assertThat(claimed.attempts()).isEqualTo(AttemptHistory.MAX_RECORDED + 1);
        assertThat(written).isEqualTo(DeliveryStore.Written.RESCHEDULED);
        assertThat(attemptHistory().attempts(message.id())).isEmpty();
        assertThat(db.queryColumn("SELECT last_error FROM scheduled_message")).containsExactly("rate-limited: again");
    }

    @Test
    void attempts_ofADeletedMessage_goWithIt() {
        ScheduledMessage message = createdMessage(dueIn(Duration.ofSeconds(-60)));
        ClaimedMessage claimed = delivery.claim(1, LEASE).messages().get(0);
        delivery.finish(List.of(new Finish.Retry(claimed.claim(), claimed.revision(), Duration.ofSeconds(30),
                Duration.ofMinutes(15), "error: busy")));
        assertThat(db.queryLong("SELECT count(*) FROM delivery_attempt")).isEqualTo(1);

        db.execute("DELETE FROM scheduled_message WHERE id = ?", message.id().value());

        assertThat(db.queryLong("SELECT count(*) FROM delivery_attempt")).isZero();
    }
}
