package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.application.support.MonotonicClock;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The relay port in memory, for dispatcher tests: records every frame written with the store-clock time it arrived
 * (so tests can assert nothing arrives before its due time), checks each frame's send deadline and claim the way the
 * real client does before writing it, and answers from a script, by default like a real relay ({@code OK true},
 * then {@code duplicate:} for an event it already has).
 */
public final class ScriptedRelayPublisher implements RelayPublisher {

    /**
     * One publish call.
     *
     * @param event      what was sent
     * @param receivedAt the store's clock when it arrived
     * @param timeout    the budget the caller gave
     */
    public record Receipt(NostrEvent event, Instant receivedAt, Duration timeout) {
        /** The event's due time ({@code created_at}). */
        public Instant dueAt() {
            return Instant.ofEpochSecond(event.createdAt());
        }
    }

    /** How the fake answers one publish. */
    @FunctionalInterface
    public interface Answer {
        /** Answers {@code event}; may block (a slow relay). */
        PublishResult answer(NostrEvent event, Duration timeout) throws InterruptedException;
    }

    private final WallClock clock;
    private final MonotonicClock monotonic;
    private final Queue<Answer> script = new ConcurrentLinkedQueue<>();
    private volatile Answer fallback;
    private final List<Receipt> receipts = new CopyOnWriteArrayList<>();
    private final Set<EventId> stored = ConcurrentHashMap.newKeySet();
    private final AtomicInteger active = new AtomicInteger();
    private final AtomicInteger maxActive = new AtomicInteger();
    private final AtomicInteger notSent = new AtomicInteger();
    private final AtomicInteger withdrawals = new AtomicInteger();
    private final List<EventId> lookUps = new CopyOnWriteArrayList<>();
    private final ArrayDeque<Queued> queued = new ArrayDeque<>();
    private boolean paused;

    /** @param clock the store's clock, read when a publish arrives */
    public ScriptedRelayPublisher(WallClock clock) {
        this(clock, MonotonicClock.SYSTEM);
    }

    /**
     * @param clock     the store's clock, read when a publish arrives
     * @param monotonic what each frame's send deadline is checked against: the dispatcher's monotonic clock
     */
    public ScriptedRelayPublisher(WallClock clock, MonotonicClock monotonic) {
        this.clock = clock;
        this.monotonic = monotonic;
        this.fallback = relayLike();
    }

    @Override
    public PublishResult publish(NostrEvent event, Duration timeout) {
        if (timeout == null || !timeout.isPositive()) {
            throw new IllegalArgumentException("publish timeout must be positive, got " + timeout);
        }
        return answerOf(event, timeout);
    }

    private PublishResult answerOf(NostrEvent event, Duration timeout) {
        receipts.add(new Receipt(event, clock.now(), timeout));
        maxActive.accumulateAndGet(active.incrementAndGet(), Math::max);
        try {
            Answer next = script.poll();
            return (next == null ? fallback : next).answer(event, timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new PublishResult.Transient("dropped: interrupted");
        } finally {
            active.decrementAndGet();
        }
    }

    /**
     * The pipelined path: the frame is "written" at once (or queued while {@link #pause paused}) unless its send
     * deadline passed or its claim was lost, which is answered {@link PublishResult.NotSent} without a receipt; the
     * scripted answer then comes from a thread of its own, so a slow or stalled answer holds up nothing else.
     */
    @Override
    public void publish(Publication publication, Consumer<PublishResult> answer) {
        synchronized (queued) {
            if (paused) {
                queued.addLast(new Queued(publication, answer));
                return;
            }
        }
        write(publication, answer);
    }

    private void write(Publication publication, Consumer<PublishResult> answer) {
        if (monotonic.nanoTime() - publication.sendBy() > 0) {
            notSent.incrementAndGet();
            answer.accept(new PublishResult.NotSent("deadline: the send deadline passed before the frame was written"));
            return;
        }
        if (!publication.held().getAsBoolean()) {
            notSent.incrementAndGet();
            answer.accept(new PublishResult.NotSent("lost: the claim was lost before the frame was written"));
            return;
        }
        NostrEvent event = switch (NostrEventJson.read(publication.eventJson())) {
            case NostrEventJson.Decoded.Event decoded -> decoded.event();
            case NostrEventJson.Decoded.Malformed malformed ->
                    throw new IllegalStateException("the dispatcher sent a malformed event: " + malformed.reason());
        };
        Thread.ofVirtual().name("scripted-relay-answer").start(
                () -> answer.accept(answerOf(event, publication.timeout())));
    }

    /**
     * Answers from what this relay accepted so far ({@link #relayLike()} answers, or {@link #has}): found, or
     * "not-found"; never a receipt, the event is not sent.
     */
    @Override
    public void lookUp(Publication publication, Consumer<PublishResult> answer) {
        lookUps.add(publication.eventId());
        answer.accept(stored.contains(publication.eventId())
                ? new PublishResult.Published(PublishResult.Acceptance.FOUND, "the relay has the event")
                : new PublishResult.Transient("not-found: the relay does not have the event"));
    }

    /** Asks like {@link #lookUp} (recorded there too); publishes like {@link #publish} when not found. */
    @Override
    public void resolveThenPublish(Publication publication, Consumer<PublishResult> answer) {
        lookUps.add(publication.eventId());
        if (stored.contains(publication.eventId())) {
            answer.accept(new PublishResult.Published(PublishResult.Acceptance.FOUND, "the relay has the event"));
            return;
        }
        publish(publication, answer);
    }

    /** Makes this relay hold {@code id} already, as if an earlier process had published it. */
    public void has(EventId id) {
        stored.add(id);
    }

    /** The event ids asked for with {@link #lookUp}, in order. */
    public List<EventId> lookUps() {
        return List.copyOf(lookUps);
    }

    @Override
    public int withdrawUnsent() {
        withdrawals.incrementAndGet();
        List<Queued> taken;
        synchronized (queued) {
            taken = List.copyOf(queued);
            queued.clear();
        }
        for (Queued one : taken) {
            one.answer.accept(new PublishResult.NotSent("withdrawn: taken back before it was written"));
        }
        return taken.size();
    }

    /** From now on frames wait unwritten (a connection that is not writable) until {@link #resume()}. */
    public void pause() {
        synchronized (queued) {
            paused = true;
        }
    }

    /** Writes the frames that waited, in order, and every later one at once. */
    public void resume() {
        List<Queued> taken;
        synchronized (queued) {
            paused = false;
            taken = List.copyOf(queued);
            queued.clear();
        }
        for (Queued one : taken) {
            write(one.publication, one.answer);
        }
    }

    /** How often {@link #withdrawUnsent()} was called (a stopping dispatcher calls it once its claim loop ended). */
    public int withdrawals() {
        return withdrawals.get();
    }

    /** Frames waiting unwritten while paused. */
    public int waiting() {
        synchronized (queued) {
            return queued.size();
        }
    }

    /** Frames answered {@link PublishResult.NotSent} because their deadline passed or their claim was lost. */
    public int notSent() {
        return notSent.get();
    }

    private record Queued(Publication publication, Consumer<PublishResult> answer) {
    }

    /** Queues answers for the next publishes, in order; after them the fallback answers. */
    public ScriptedRelayPublisher then(Answer... answers) {
        script.addAll(List.of(answers));
        return this;
    }

    /** Answers every publish not scripted by {@link #then} with {@code answer}. */
    public ScriptedRelayPublisher always(Answer answer) {
        this.fallback = answer;
        return this;
    }

    /** Every publish so far, in arrival order. */
    public List<Receipt> receipts() {
        return List.copyOf(receipts);
    }

    /** Publishes of {@code id} so far. */
    public long sends(EventId id) {
        return receipts.stream().filter(r -> r.event().id().equals(id)).count();
    }

    /** Publishes that arrived before their event's due time (must stay empty). */
    public List<Receipt> early() {
        return receipts.stream().filter(r -> r.receivedAt().isBefore(r.dueAt())).toList();
    }

    /** Most publishes that were in progress at once. */
    public int maxConcurrent() {
        return maxActive.get();
    }

    /** Publishes in progress now. */
    public int active() {
        return active.get();
    }

    /** Like a relay: {@code OK true}, or {@code duplicate:} for an event accepted before. */
    public Answer relayLike() {
        return (event, timeout) -> stored.add(event.id())
                ? new PublishResult.Published(false, "")
                : new PublishResult.Published(true, "duplicate: already have this event");
    }

    /** A permanent refusal. */
    public static Answer rejected(String prefix, String message) {
        return (event, timeout) -> new PublishResult.Rejected(prefix, message);
    }

    /** A transient failure (relay down, rate limited). */
    public static Answer unavailable(String reason) {
        return (event, timeout) -> new PublishResult.Transient(reason);
    }

    /**
     * Waits for {@code release} (at most {@code timeout}, like a relay client that gives up), counting down
     * {@code entered} on arrival; then answers like a relay, or {@code timeout:} when not released in time.
     */
    public Answer held(CountDownLatch entered, CountDownLatch release) {
        Answer relay = relayLike();
        return (event, timeout) -> {
            entered.countDown();
            if (release.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                return relay.answer(event, timeout);
            }
            return new PublishResult.Transient("timeout: no OK within " + timeout);
        };
    }

    /** Like {@link #held} but ignores the timeout (a relay slower than any budget; the test ends the wait). */
    public Answer stalled(CountDownLatch entered, CountDownLatch release) {
        Answer relay = relayLike();
        return (event, timeout) -> {
            entered.countDown();
            if (!release.await(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("test never released the stalled relay");
            }
            return relay.answer(event, timeout);
        };
    }
}
