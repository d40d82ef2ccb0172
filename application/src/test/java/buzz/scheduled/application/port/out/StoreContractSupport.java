package buzz.scheduled.application.port.out;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.application.port.out.MessageAdmission.CreateLimits;
import buzz.scheduled.application.port.out.MessageAdmission.CreateResult;
import buzz.scheduled.application.port.out.MessageAdmission.IdempotencyKey;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the storage contracts share: an empty owner's store and the delivery store over the same rows, the store's
 * clock, and helpers that make messages due relative to it. Implemented for the in-memory fakes (application tests)
 * and for PostgreSQL (adapters-postgres).
 */
public abstract class StoreContractSupport<S extends OwnerMessageQueries & MessageAdmission & OwnerMessageChanges> {

    /** Generous limits for cases that are not about limits. */
    protected static final CreateLimits NO_LIMITS = new CreateLimits(10_000, 10_000, Duration.ofMinutes(5));
    protected static final Duration LEASE = Duration.ofMinutes(1);
    protected static final PublicKey ALICE = TestEvents.ALICE;
    protected static final PublicKey BOB = TestEvents.BOB;
    protected static final Channel GENERAL = new Channel("general");

    /** The owner side's three ports, one object in each implementation. */
    protected S store;
    protected DeliveryStore delivery;

    /** A store with no messages, keys or tombstones (fencing tokens may continue from earlier tests). */
    protected abstract S emptyStore();

    /** The delivery store over the rows of the store {@link #emptyStore()} made last. */
    protected abstract DeliveryStore deliveryStore();

    /** Records that {@code channel} was deleted (the port has no write for tombstones yet). */
    protected abstract void deleteChannel(Channel channel);

    /** Makes {@code duration} pass on the store's clock, as far as every stored time is concerned. */
    protected abstract void letTimePass(Duration duration);

    @BeforeEach
    void openStore() {
        store = emptyStore();
        delivery = deliveryStore();
    }

    // ------------------------------------------------------------------------------------------------------
    // helpers

    /** The store's clock. */
    protected Instant now() {
        return delivery.now();
    }

    /** Unix seconds {@code seconds} from the store's now. */
    protected long inSeconds(long seconds) {
        return now().getEpochSecond() + seconds;
    }

    /** A new revision-1 message by Alice in {@code general}, due {@code fromNow} from the store's now. */
    protected ScheduledMessage dueIn(Duration fromNow) {
        return message(new ScheduleId(UUID.randomUUID()), TestEvents.at(inSeconds(fromNow.toSeconds())).build());
    }

    /** A new revision-1 message for {@code event}, due at its {@code created_at}. */
    protected ScheduledMessage message(ScheduleId id, NostrEvent event) {
        Instant now = now().truncatedTo(ChronoUnit.MICROS);
        return new ScheduledMessage(id, event.pubkey(), new Channel(event.firstTagValue("h").orElseThrow()),
                Revision.FIRST, event.id(), Instant.ofEpochSecond(event.createdAt()), Optional.of(event),
                ScheduleState.Scheduled.NOW, 0, now, now);
    }

    protected ScheduledMessage createdMessage(ScheduledMessage message) {
        assertThat(store.create(message, keyOf(message), NO_LIMITS)).isEqualTo(new CreateResult.Created(message));
        return message;
    }

    protected static IdempotencyKey keyOf(ScheduledMessage message) {
        return new IdempotencyKey(message.owner(), message.eventId().hex());
    }

    protected static ScheduledMessage withId(ScheduledMessage m, ScheduleId id) {
        return new ScheduledMessage(id, m.owner(), m.channel(), m.revision(), m.eventId(), m.dueAt(), m.event(),
                m.state(), m.attempts(), m.createdAt(), m.updatedAt(), m.series());
    }

    protected ScheduledMessage revised(ScheduledMessage m, NostrEvent event) {
        Instant now = now().truncatedTo(ChronoUnit.MICROS);
        return new ScheduledMessage(m.id(), m.owner(), m.channel(), m.revision().next(), event.id(),
                Instant.ofEpochSecond(event.createdAt()), Optional.of(event), ScheduleState.Scheduled.NOW,
                m.attempts(), m.createdAt(), now, m.series());
    }

    protected static ScheduledMessage changed(buzz.scheduled.domain.schedule.OwnerOutcome outcome) {
        assertThat(outcome).isInstanceOf(buzz.scheduled.domain.schedule.OwnerOutcome.Changed.class);
        return ((buzz.scheduled.domain.schedule.OwnerOutcome.Changed) outcome).message();
    }


    protected static Instant leaseUntil(ScheduledMessage m) {
        return switch (m.state()) {
            case ScheduleState.Claimed c -> c.leaseUntil();
            case ScheduleState.Sending s -> s.leaseUntil();
            default -> throw new AssertionError("no lease in state " + m.state().wireName());
        };
    }

    /** Runs all tasks at once (released together by a latch) and returns their results in task order. */
    protected static <T> List<T> concurrently(List<? extends Callable<? extends T>> tasks) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(tasks.size());
        try {
            return runTogether(threads, tasks);
        } finally {
            threads.shutdownNow();
            assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).as("test threads stopped").isTrue();
        }
    }

    private static <T> List<T> runTogether(ExecutorService threads, List<? extends Callable<? extends T>> tasks)
            throws Exception {
        CountDownLatch ready = new CountDownLatch(tasks.size());
        CountDownLatch go = new CountDownLatch(1);
        List<Future<? extends T>> futures = new ArrayList<>();
        for (Callable<? extends T> task : tasks) {
            futures.add(threads.submit(() -> {
                ready.countDown();
                go.await();
                return task.call();
            }));
        }
        assertThat(ready.await(10, TimeUnit.SECONDS)).as("all tasks started").isTrue();
        go.countDown();
        List<T> results = new ArrayList<>();
        for (Future<? extends T> future : futures) {
            results.add(future.get(30, TimeUnit.SECONDS));
        }
        return results;
    }
}
