package buzz.scheduled.application.service;

import buzz.scheduled.application.fakes.FakeEventSignatures;
import buzz.scheduled.application.fakes.InMemoryDeliveryStore;
import buzz.scheduled.application.fakes.InMemoryOwnerMessages;
import buzz.scheduled.application.fakes.SampleEvents;
import buzz.scheduled.application.fakes.ScriptedAccessPolicy;
import buzz.scheduled.application.fakes.ScriptedRelayPublisher;
import buzz.scheduled.application.fakes.SequentialScheduleIds;
import buzz.scheduled.application.fakes.SettableClock;
import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.port.out.DatabaseAvailability;
import buzz.scheduled.application.port.out.DeliveryObserver;
import buzz.scheduled.application.port.out.DeliveryStore;
import buzz.scheduled.application.port.out.DueWorkNotice;
import buzz.scheduled.application.port.out.DueWorkSignal;
import buzz.scheduled.application.port.out.MessageAdmission;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.support.MonotonicClock;
import buzz.scheduled.application.testing.Poll;
import buzz.scheduled.application.testing.SteppedMonotonicClock;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.Admission;
import buzz.scheduled.domain.schedule.AdmissionRules;
import buzz.scheduled.domain.schedule.Backoff;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One in-memory world for dispatcher tests: a settable store clock, the store, access policy and a relay; the
 * monotonic clock is the host's unless a test calls {@link #stepTime()}.
 */
final class DispatchFixture implements AutoCloseable {
    static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    static final String CHANNEL = "general";
    static final MessageAdmission.CreateLimits ROOMY = new MessageAdmission.CreateLimits(100_000, 100_000,
            Duration.ofMinutes(5));

    final SettableClock clock = new SettableClock(T0);
    /** The monotonic clock a test steps once it called {@link #stepTime()}. */
    final SteppedMonotonicClock ticks = new SteppedMonotonicClock();
    /** What dispatchers started here, their stepped stores and the relay read deadlines from. */
    private volatile MonotonicClock monotonic = MonotonicClock.SYSTEM;
    private final MonotonicClock currentMonotonic = () -> monotonic.nanoTime();
    final InMemoryOwnerMessages store = new InMemoryOwnerMessages(clock);
    final InMemoryDeliveryStore deliveryStore = new InMemoryDeliveryStore(store, clock);
    final ScriptedAccessPolicy access = new ScriptedAccessPolicy();
    final ScriptedRelayPublisher relay = new ScriptedRelayPublisher(clock, currentMonotonic);
    final RecordingObserver observer = new RecordingObserver();
    /** The relay's NIP-11 limits as the dispatcher sees them; none unless a test sets them. */
    volatile RelayLimits.Limitation limitation = RelayLimits.Limitation.NONE;
    final RelayLimits limits = () -> limitation;
    private final SequentialScheduleIds ids = new SequentialScheduleIds();
    private final List<Dispatcher> running = new ArrayList<>();
    private final List<RecordingSignal> signals = new ArrayList<>();

    /** Lease 30 s, publish timeout 10 s, margin 2 s, reap grace 5 s, lateness 900 s, backoff 2 s..60 s. */
    static DeliverySettings deliverySettings() {
        return deliverySettings(Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(2));
    }

    static DeliverySettings deliverySettings(Duration lease, Duration publishTimeout, Duration margin) {
        return new DeliverySettings(lease, publishTimeout, margin, Duration.ofSeconds(5), Duration.ofSeconds(900),
                new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(60), () -> 0.5));
    }

    /** A window of four, claims of four, a 30 s backstop, a reaper every hour (tests call it). */
    static DispatcherSettings dispatcherSettings(DeliverySettings delivery) {
        return dispatcherSettings(delivery, 4);
    }

    /** A window of {@code window} frames, claims of as many, otherwise as {@link #dispatcherSettings}. */
    static DispatcherSettings dispatcherSettings(DeliverySettings delivery, int window) {
        return new DispatcherSettings(delivery, window, window, DispatcherSettings.MIN_QUEUED_BYTES,
                Duration.ofSeconds(30), Duration.ofHours(1), Duration.ofMillis(50));
    }

    /** The delivery store wrapped so the test can freeze or fail its calls. */
    SteppedDeliveryStore stepped() {
        return new SteppedDeliveryStore(deliveryStore, currentMonotonic);
    }

    /**
     * From now on the dispatchers, their stepped stores and the relay read {@link #ticks}, which stands still until
     * {@link #advance} steps it: call before starting a dispatcher.
     */
    void stepTime() {
        monotonic = ticks;
    }

    /**
     * Steps {@link #ticks} by {@code step} and wakes whoever waits for a deadline on it: the finisher of every running
     * dispatcher, and every claim loop sleeping in a {@link RecordingSignal} (as if its wait had timed out).
     */
    void advance(Duration step) {
        ticks.advance(step);
        for (Dispatcher dispatcher : List.copyOf(running)) {
            dispatcher.timeMoved();
        }
        for (RecordingSignal signal : List.copyOf(signals)) {
            signal.timeMoved();
        }
    }

    /** The owner's routes over this world's store, access policy, clock and ids; every signature counts as valid. */
    OwnerMessagesService owners() {
        return new OwnerMessagesService(store, store, store, new FakeEventSignatures(), access, ids, clock,
                DueWorkNotice.NONE, new SchedulingSettings(
                new AdmissionRules(AdmissionRules.DEFAULT_KINDS, AdmissionRules.DEFAULT_MAX_CONTENT_BYTES,
                        Duration.ofDays(120)),
                new MessageAdmission.CreateLimits(100, 30, Duration.ofMinutes(5)), Duration.ofSeconds(900)));
    }

    /** Stores a message whose event is due at {@code dueAt} (whole seconds). */
    ScheduledMessage schedule(Instant dueAt, String content) {
        NostrEvent event = SampleEvents.message(CHANNEL, dueAt.getEpochSecond(), content);
        ScheduledMessage message = ScheduledMessage.admit(ids.next(),
                new Admission(event, new Channel(CHANNEL), dueAt), clock.now());
        MessageAdmission.CreateResult created = store.create(message,
                new MessageAdmission.IdempotencyKey(SampleEvents.OWNER, event.id().hex()), ROOMY);
        if (!(created instanceof MessageAdmission.CreateResult.Created)) {
            throw new IllegalStateException("fixture could not store " + content + ": " + created);
        }
        return message;
    }

    ScheduledMessage row(ScheduledMessage message) {
        return store.find(message.id()).orElseThrow();
    }

    String state(ScheduledMessage message) {
        return row(message).state().wireName();
    }

    Instant leaseUntil(ScheduledMessage message) {
        return switch (row(message).state()) {
            case ScheduleState.Claimed c -> c.leaseUntil();
            case ScheduleState.Sending s -> s.leaseUntil();
            default -> throw new AssertionError("no lease in state " + state(message));
        };
    }

    /**
     * Waits until the observer heard {@code count} outcomes of {@code message}. Telling the observer is the last
     * thing the finisher does for a recorded outcome, so the row and the dispatcher's counts are settled by then.
     */
    List<DeliveryObserver.DeliveryReport> awaitReports(ScheduledMessage message, int count) {
        Poll.until(count + " reports about " + message.id(), () -> observer.reportsOf(message.id()).size() >= count);
        return observer.reportsOf(message.id());
    }

    /**
     * Moves the store's clock to the retry time of a message back in {@code scheduled} and wakes the dispatcher
     * sleeping on {@code signal} (the clock jumps instead of running, so the sleeper must be told to look again).
     */
    void moveToRetryTime(ScheduledMessage message, RecordingSignal signal) {
        clock.set(((ScheduleState.Scheduled) row(message).state()).retryAt().orElseThrow());
        signal.notifyDue(Optional.empty());
    }

    /** Starts a dispatcher over {@code store} with this world's relay, access policy and observer. */
    Dispatcher start(DeliveryStore store, DueWorkSignal signal, DispatcherSettings settings) {
        return start(store, relay, signal, settings);
    }

    /** Starts a dispatcher over {@code store} publishing to {@code publisher}. */
    Dispatcher start(DeliveryStore store, RelayPublisher publisher, DueWorkSignal signal,
                     DispatcherSettings settings) {
        return start(store, publisher, access, signal, settings);
    }

    /** Starts a dispatcher over {@code store} publishing to {@code publisher} and asking {@code policy}. */
    Dispatcher start(DeliveryStore store, RelayPublisher publisher, AccessPolicy policy, DueWorkSignal signal,
                     DispatcherSettings settings) {
        return started(new Dispatcher(store, publisher, policy, limits, signal, observer, settings,
                DatabaseAvailability.ASSUMED, store::now, currentMonotonic), signal);
    }

    /** Starts a dispatcher over {@code store} that follows {@code database} (a database watch's stand-in). */
    Dispatcher start(DeliveryStore store, DueWorkSignal signal, DispatcherSettings settings,
                     DatabaseAvailability database) {
        return started(new Dispatcher(store, relay, access, limits, signal, observer, settings, database, clock,
                currentMonotonic), signal);
    }

    private Dispatcher started(Dispatcher dispatcher, DueWorkSignal signal) {
        dispatcher.start();
        running.add(dispatcher);
        if (signal instanceof RecordingSignal recording) {
            signals.add(recording);
        }
        return dispatcher;
    }

    /** Stops a dispatcher the test is done with (and forgets it, so {@link #close()} does not stop it again). */
    Dispatcher.Shutdown stop(Dispatcher dispatcher, Duration bound) {
        running.remove(dispatcher);
        return dispatcher.stop(bound);
    }

    @Override
    public void close() {
        for (Dispatcher dispatcher : List.copyOf(running)) {
            stopWithin(dispatcher, Duration.ofSeconds(5));
        }
        running.clear();
    }

    /**
     * Stops {@code dispatcher}. With stepped time nothing but the test moves the clock, so a stop whose bound matters
     * (a test that failed with claims still held) is helped along: the clock is stepped by the bound until it returns.
     */
    private void stopWithin(Dispatcher dispatcher, Duration bound) {
        if (monotonic != ticks) {
            dispatcher.stop(bound);
            return;
        }
        CompletableFuture<Dispatcher.Shutdown> stop = CompletableFuture.supplyAsync(() -> dispatcher.stop(bound));
        while (true) {
            try {
                stop.get(100, TimeUnit.MILLISECONDS);
                return;
            } catch (TimeoutException e) {
                ticks.advance(bound);
                dispatcher.timeMoved();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException e) {
                throw new IllegalStateException("stopping a dispatcher failed", e.getCause());
            }
        }
    }
}
