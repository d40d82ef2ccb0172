package buzz.scheduled.bootstrap.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.service.DeliverySettings;
import buzz.scheduled.application.service.DispatcherSettings;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.Backoff;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * docs/failure-scenarios.md F35 with real PostgreSQL and the real test relay, which needs NIP-42 AUTH to write and to
 * read (it challenges only on demand, and answers an unauthenticated REQ with its challenge and an empty EOSE, or with
 * {@code CLOSED auth-required:}). A node sends a message and loses its database writes before recording it; it is
 * gone until the message is past its lateness limit (compressed here to 6 s). The next node's claim finds it too late
 * to send, asks the relay whether it has the event, authenticates when the relay will not say before AUTH, and
 * records it {@code published}, never {@code failed expired}.
 */
class LookUpBehindAuthTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static final DeliverySettings DELIVERY = new DeliverySettings(Duration.ofSeconds(6), Duration.ofSeconds(2),
            Duration.ofMillis(500), Duration.ofMillis(500), Duration.ofSeconds(6),
            new Backoff(Duration.ofMillis(500), Duration.ofSeconds(2), Math::random));
    private static final DispatcherSettings SETTINGS = new DispatcherSettings(DELIVERY, 8, 8,
            DispatcherSettings.MIN_QUEUED_BYTES, Duration.ofSeconds(30), Duration.ofMillis(200), Duration.ofMillis(200));

    @ParameterizedTest
    @ValueSource(strings = {"eose", "closed"})
    void restartPastTheLatenessLimit_relayNeedsAuthToRead_andHoldsTheEvent_messageEndsPublished(String readAnswer) {
        db.truncateAllTables(); // each dialect on its own: nothing of the other run is claimed or looked up
        try (TestRelay relay = TestRelay.builder().auth(true).mode("--challenge-late", "--auth-reads", readAnswer)
                .logReceived().start()) {
            Authors author = new Authors();
            AtomicBoolean writesGone = new AtomicBoolean();
            ScheduledMessage message;
            NostrEvent event;
            try (DeliveryNode first = DeliveryNode.on(db.dataSource(), db.jdbcUrl(), relay.url()).named("first")
                    .settings(SETTINGS).wrapping(inner -> new ForwardingDeliveryStore(inner) {
                        @Override
                        public List<FinishResult> finish(List<Finish> outcomes) {
                            writesGone.set(true);
                            throw new IllegalStateException("the database writes of this node are gone");
                        }

                        @Override
                        public Set<ScheduleId> renew(Collection<Claim> claims, Duration lease) {
                            throw new IllegalStateException("the database writes of this node are gone");
                        }
                    }).start()) {
                first.warmUp();
                event = author.message(first.nextSecond(), "sent, then its node lost its writes");
                message = Authors.schedule(first.store, event);
                Poll.until("the relay to store the event", Duration.ofSeconds(20),
                        () -> relay.stores(event.id().hex()));
                Poll.until("the first node to try recording it", Duration.ofSeconds(20), writesGone::get);
            }
            Instant pastTheLimit = Instant.ofEpochSecond(event.createdAt()).plus(DELIVERY.maxLateness()).plusSeconds(1);
            Poll.until("the lateness limit to pass on the database clock", Duration.ofSeconds(30),
                    () -> db.queryLong("SELECT count(*) FROM scheduled_message WHERE now() > ?",
                            Timestamp.from(pastTheLimit)) > 0);

            try (DeliveryNode next = DeliveryNode.on(db.dataSource(), db.jdbcUrl(), relay.url()).named("next")
                    .settings(SETTINGS).start()) {
                Poll.until("the message to end", Duration.ofSeconds(30),
                        () -> next.store.find(message.id()).orElseThrow().state().terminal());

                assertThat(next.state(message)).isEqualTo("published");
                assertThat(next.relayClient.counts().askedAgain()).as("the answer before AUTH was asked again")
                        .isEqualTo(1);
                assertThat(relay.receivedEvents()).extracting(TestRelay.ReceivedEvent::id).as("asked, never sent again")
                        .containsOnlyOnce(event.id().hex());
                assertThat(db.queryLong("SELECT attempts FROM scheduled_message WHERE id = ?",
                        message.id().value())).isEqualTo(2);
            }
        }
    }
}
