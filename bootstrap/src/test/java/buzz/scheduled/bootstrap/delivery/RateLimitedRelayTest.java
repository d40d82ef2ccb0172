package buzz.scheduled.bootstrap.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.adapters.postgres.testing.ScratchDatabaseExtension;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/failure-scenarios.md F39 with real PostgreSQL, the dispatcher as serve wires it and the real test relay
 * limiting events as khatru's EventIPRateLimiter does, 10 at once and 10 more every 5 s: 100 messages due in the same
 * second are all published, at no more than 1.5 frames per message, the last within 20 % of the 50 s the relay's pace
 * allows (10 at once, then 90 at 10 per 5 s: 40 to 45 s after the first, by the phase of its interval). The figures
 * are printed.
 */
class RateLimitedRelayTest {

    @RegisterExtension
    static final ScratchDatabaseExtension db = ScratchDatabaseExtension.migrated();

    private static final int MESSAGES = 100;
    private static final Duration RELAY_ALLOWS = Duration.ofSeconds(50);

    @Test
    void hundredDueAtOnce_relayTakingTenEveryFiveSeconds_allPublished_atMostOneAndAHalfFramesEach_lateBy20PercentAtMost() {
        try (TestRelay relay = TestRelay.builder().mode("--rate-limit", "10/5").logReceived().start();
             DeliveryNode node = DeliveryNode.on(db.dataSource(), db.jdbcUrl(), relay.url()).named("paced").start()) {
            Authors author = new Authors();
            Instant due = node.nextSecond().plusSeconds(2);
            Set<String> ids = new HashSet<>();
            for (int i = 0; i < MESSAGES; i++) {
                NostrEvent event = author.message(due, "paced " + i);
                Authors.schedule(node.store, event);
                ids.add(event.id().hex());
            }

            Poll.until("every message to be published", Duration.ofMinutes(4), () -> db.queryLong(
                    "SELECT count(*) FROM scheduled_message WHERE state = 'published'") == MESSAGES);
            List<TestRelay.ReceivedEvent> frames = relay.receivedEvents();
            double framesPerMessage = frames.size() / (double) MESSAGES;
            Duration worst = Duration.ofMillis(db.queryLong("SELECT (extract(epoch FROM max(finished_at - due_at))"
                    + " * 1000)::bigint FROM scheduled_message WHERE state = 'published'"));
            long refused = node.relayClient.counts().rateLimited();

            System.out.printf("F39: %d messages due at once at a relay taking 10 events every 5 s: %d EVENT frames"
                    + " (%.2f per message, %d answered rate-limited), worst lateness %.1f s against the ~%d s the"
                    + " relay's pace allows%n", MESSAGES, frames.size(), framesPerMessage, refused,
                    worst.toMillis() / 1000.0, RELAY_ALLOWS.toSeconds());
            assertThat(frames.stream().map(TestRelay.ReceivedEvent::id).distinct().toList())
                    .containsExactlyInAnyOrderElementsOf(ids);
            assertThat(framesPerMessage).isLessThanOrEqualTo(1.5);
            assertThat(worst).isLessThanOrEqualTo(Duration.ofMillis(RELAY_ALLOWS.toMillis() * 12 / 10));
            assertThat(db.queryLong("SELECT count(*) FROM scheduled_message WHERE due_at > finished_at"))
                    .as("none published before its due time").isZero();
        }
    }
}
