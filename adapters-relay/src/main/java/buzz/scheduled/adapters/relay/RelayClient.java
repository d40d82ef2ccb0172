package buzz.scheduled.adapters.relay;

import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A NIP-01 publishing client on one {@link RelayConnection} (which owns the JDK WebSocket, reconnects, parses the
 * relay's messages, pings, and makes the NIP-42 AUTH event): one persistent connection on which many {@code EVENT}
 * frames wait for their {@code OK}s at once (each {@code OK} is matched to its event id). This class decides what is
 * written when: the window of frames, their deadlines, the hold until AUTH, and what an answer or a lost connection
 * means for each frame.
 *
 * <p>What it guarantees the dispatcher (docs/delivery.md):
 * <ul>
 *   <li>A frame is never written to the socket after its {@link Publication#sendBy()} deadline or after its claim
 *       was reported lost; such a publication is answered {@link PublishResult.NotSent}. A frame the JDK has not
 *       finished writing when its deadline passes (a relay that stopped reading) ends the connection, so it cannot
 *       leave later.</li>
 *   <li>An unknown outcome (no {@code OK} within the timeout, or the connection lost after the frame was written) is
 *       resolved by asking the relay for the id ({@code REQ} with {@code ids}, up to {@code EOSE}) before it is
 *       reported: found is {@link PublishResult.Published} ({@code found}); after a lost connection, an event the
 *       relay does not have is sent again on the next connection without counting against it.</li>
 *   <li>A relay that closes the connection with 1009 (message too big) on a frame fails that frame
 *       {@code too-large} at once, and frames at least that long are refused before sending from then on; the other
 *       frames of that connection are resolved and resent as above.</li>
 *   <li>NIP-42 ({@link WriteGate}): a fresh connection writes its first event frame at once, never waiting for a
 *       challenge, and holds the rest until the relay has answered it, challenged, or stayed silent for
 *       {@link RelaySettings#authChallengeWait()}; a challenge is answered with AUTH before anything else; an
 *       {@code auth-required:} answer is followed by AUTH with the sidecar's key (as soon as the relay's challenge is
 *       known) and one resend; a refused AUTH is logged at WARN with the relay's words and counted. The AUTH event's
 *       {@code relay} tag is {@link RelaySettings#authUrl()}. A question answered before AUTH ({@code CLOSED
 *       auth-required:}, or an {@code EOSE} while the relay's challenge stands unanswered) is asked again after AUTH
 *       and never taken as "not found" ({@link LookUpEnd}).</li>
 *   <li>Rate limits ({@link SendPace}): a frame answered {@code rate-limited:} is sent again by this client, at the
 *       pace the relay turns out to accept, until its deadline; only then is it answered
 *       {@link PublishResult.Transient} with the relay's words.</li>
 *   <li>Liveness: a WebSocket ping every {@link RelaySettings#pingInterval()}, a fresh connection when the pong does
 *       not come or when {@link RelaySettings#timeoutsBeforeReconnect()} publishes in a row got no answer and nothing
 *       else was heard; messages from the relay longer than {@link RelaySettings#maxInboundBytes()} end the
 *       connection; reconnection with exponential backoff and jitter.</li>
 * </ul>
 * Relay trouble never throws: every publication gets exactly one answer.
 */
public final class RelayClient implements RelayPublisher, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RelayClient.class);
    /** How often deadlines, timeouts and the ping are checked. */
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** Most ids asked for in one resolving {@code REQ}. */
    private static final int IDS_PER_REQ = 100;
    /**
     * Most resolving subscriptions open at once on a connection before a {@link #lookUp} waits its turn: relays limit
     * open subscriptions per connection (strfry and khatru do), and one refused would leave its events unknown.
     */
    static final int MAX_OPEN_RESOLUTIONS = 2;
    private static final int MESSAGE_TOO_BIG = 1009;

    /** NOTICEs logged at INFO per connection; the rest at DEBUG. */
    static final int NOTICES_LOGGED = 20;

    private final RelaySettings settings;
    private final AuthEventSigner authSigner;
    private final WallClock clock;
    private final HttpClient http;
    private final ScheduledExecutorService timer;
    private final RelayConnection relay;
    private final Counters counters = new Counters();

    private final ReentrantLock lock = new ReentrantLock();
    // guarded by lock
    private final ArrayDeque<Pending> queued = new ArrayDeque<>();
    /** Frames the relay refused for now ({@code auth-required:}, {@code rate-limited:}), to write again first. */
    private final ArrayDeque<Pending> resends = new ArrayDeque<>();
    /** Look-ups ({@link #lookUp}) waiting to be asked. */
    private final ArrayDeque<Pending> lookUps = new ArrayDeque<>();
    /** Frames of a lost connection to ask the next connection about. */
    private final List<Pending> unresolved = new ArrayList<>();
    /** How fast event frames may go, learnt from the relay's rate-limited answers; kept across connections. */
    private final SendPace pace = new SendPace(System.nanoTime());
    /** The open connection's state; written under the lock, read without it for each relay message. */
    private volatile Session session;
    private boolean closed;
    /** Frames of at least this many characters made the relay close the connection (1009). */
    private long refusedFrameLength = Long.MAX_VALUE;
    private long nextSubscription;

    /**
     * @param settings   where and how to connect
     * @param authSigner signs NIP-42 AUTH events with the sidecar's key
     * @param clock      gives the AUTH event's {@code created_at}
     */
    public RelayClient(RelaySettings settings, AuthEventSigner authSigner, WallClock clock) {
        if (settings == null || authSigner == null || clock == null) {
            throw new IllegalArgumentException("settings, authSigner and clock are required");
        }
        this.settings = settings;
        this.authSigner = authSigner;
        this.clock = clock;
        this.http = HttpClient.newBuilder().connectTimeout(settings.connectTimeout()).build();
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "relay-client-timer");
            thread.setDaemon(true);
            return thread;
        });
        this.relay = new RelayConnection(settings, http, timer, new Events());
        timer.scheduleWithFixedDelay(this::tick, TICK_NANOS, TICK_NANOS, TimeUnit.NANOSECONDS);
    }

    /**
     * Starts connecting if no connection exists or is being made; returns at once.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    public void connect() {
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("relay client for " + settings.url() + " is closed");
            }
            relay.connect();
        } finally {
            lock.unlock();
        }
    }

    /** Whether a connection to the relay is open (and not waiting for the relay to answer our AUTH) right now. */
    public boolean isConnected() {
        lock.lock();
        try {
            return session != null && session.open && !session.ended
                    && session.gate.state() != WriteGate.State.AUTHENTICATING;
        } finally {
            lock.unlock();
        }
    }

    /** What this client has seen since it was made (for metrics). */
    public Counts counts() {
        return counters.snapshot();
    }

    // ---------------------------------------------------------------------------------------------------
    // Publishing

    @Override
    public PublishResult publish(NostrEvent event, Duration timeout) {
        if (event == null) {
            throw new IllegalArgumentException("event is missing");
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("publish timeout must be positive, got " + timeout);
        }
        // Two thirds of the time for the OK, the rest to ask the relay for the event if the OK does not come. The
        // frame's own deadline comes a tenth before the caller's, so that this client's answer (NotSent, or the relay's
        // words for a frame it kept refusing) arrives before the wait below gives up.
        long start = System.nanoTime();
        Duration okWait = Duration.ofNanos(Math.max(1, timeout.toNanos() * 2 / 3));
        CompletableFuture<PublishResult> answer = new CompletableFuture<>();
        publish(new Publication(event.id(), NostrEventJson.write(event), start + timeout.toNanos() * 9 / 10, () -> true,
                okWait), answer::complete);
        try {
            return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return new PublishResult.Transient("timeout: no answer from the relay within " + timeout);
        } catch (ExecutionException e) {
            return new PublishResult.Transient("error: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new PublishResult.Transient("interrupted: while waiting for the relay's OK");
        }
    }

    @Override
    public void publish(Publication publication, Consumer<PublishResult> answer) {
        if (publication == null || answer == null) {
            throw new IllegalArgumentException("a publication and an answer callback are required");
        }
        enqueue(new Pending(publication, answer, false));
    }

    @Override
    public void lookUp(Publication publication, Consumer<PublishResult> answer) {
        if (publication == null || answer == null) {
            throw new IllegalArgumentException("a publication and an answer callback are required");
        }
        enqueue(new Pending(publication, answer, true));
    }

    /**
     * {@inheritDoc} The publication joins the frames whose outcome is unknown after a lost connection: the next time
     * the connection may ask, it is asked about (many in one {@code REQ}) and, if the relay does not have it, written
     * at once.
     */
    @Override
    public void resolveThenPublish(Publication publication, Consumer<PublishResult> answer) {
        if (publication == null || answer == null) {
            throw new IllegalArgumentException("a publication and an answer callback are required");
        }
        Pending pending = new Pending(publication, answer, false);
        pending.dropped = true;
        lock.lock();
        try {
            if (!closed) {
                unresolved.add(pending);
                relay.connect();
                pending = null;
            }
        } finally {
            lock.unlock();
        }
        if (pending != null) {
            pending.answer(new PublishResult.NotSent("closed: the relay client for " + settings.url() + " is closed"));
        }
    }

    private void enqueue(Pending pending) {
        PublishResult refusal = null;
        lock.lock();
        try {
            if (closed) {
                refusal = new PublishResult.NotSent("closed: the relay client for " + settings.url() + " is closed");
            } else if (!pending.lookUpOnly && pending.frame.length() >= refusedFrameLength) {
                refusal = tooLarge(pending, "an earlier frame of " + refusedFrameLength + " characters made the relay "
                        + "close the connection (1009 message too big)");
            } else {
                (pending.lookUpOnly ? lookUps : queued).addLast(pending);
                relay.connect();
            }
        } finally {
            lock.unlock();
        }
        if (refusal != null) {
            pending.answer(refusal);
            return;
        }
        pump();
    }

    @Override
    public int withdrawUnsent() {
        List<Pending> withdrawn = new ArrayList<>();
        lock.lock();
        try {
            withdrawn.addAll(takeWaiting());
        } finally {
            lock.unlock();
        }
        for (Pending pending : withdrawn) {
            pending.answer(new PublishResult.NotSent(pending.refusal == null
                    ? "withdrawn: the frame was taken back before it was written"
                    : "withdrawn: the frame was taken back before it was written again (" + pending.refusal.words()
                    + ")"));
        }
        return withdrawn.size();
    }

    /** Closes the connection and stops reconnecting; everything waiting is answered. */
    @Override
    public void close() {
        List<Pending> waiting = new ArrayList<>();
        Session current;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            waiting.addAll(takeWaiting());
            waiting.addAll(unresolved);
            unresolved.clear();
            current = session;
            if (current != null) {
                waiting.addAll(current.written());
                current.resolutions.values().forEach(resolution -> waiting.addAll(resolution.frames.values()));
            }
        } finally {
            lock.unlock();
        }
        timer.shutdownNow();
        relay.close();
        for (Pending pending : waiting) {
            pending.answer(pending.writtenAt == 0
                    ? new PublishResult.NotSent("closed: the relay client was closed before the frame was written")
                    : new PublishResult.Transient("dropped: the relay client was closed before the relay answered"));
        }
        http.shutdownNow();
    }

    /** Empties the queues of frames and look-ups not yet written; their order is kept. */
    // guarded by lock
    private List<Pending> takeWaiting() {
        List<Pending> all = new ArrayList<>(resends.size() + queued.size() + lookUps.size());
        all.addAll(resends);
        all.addAll(queued);
        all.addAll(lookUps);
        resends.clear();
        queued.clear();
        lookUps.clear();
        return all;
    }

    /** The answer to a frame whose deadline passed, or whose claim was lost, before it was (again) written. */
    private PublishResult unsent(Pending pending, String deadline) {
        if (!pending.publication.held().getAsBoolean()) {
            return new PublishResult.NotSent("lost: the claim was lost before the frame reached the socket");
        }
        return pending.refusal == null ? new PublishResult.NotSent(deadline)
                : new PublishResult.Transient(pending.refusal.words()
                        + " (not written again before its send deadline)");
    }

    private PublishResult tooLarge(Pending pending, String why) {
        counters.tooLarge.incrementAndGet();
        return new PublishResult.Rejected("too-large", "this frame has " + pending.frame.length() + " characters; "
                + why);
    }

    /**
     * Writes queued frames while the connection is open and no write is in progress: AUTH and control frames first,
     * then events in order. Each event's deadline and claim are checked right before its frame is handed to the
     * socket.
     */
    private void pump() {
        while (true) {
            List<Pending> notSent = new ArrayList<>();
            Session target;
            String text;
            lock.lock();
            try {
                target = session;
                if (target == null || !target.open || target.ended || target.writing) {
                    return;
                }
                text = target.control.pollFirst();
                long now = System.nanoTime();
                if (text == null && target.gate.mayAsk() && target.resolutions.size() < MAX_OPEN_RESOLUTIONS) {
                    List<Pending> asks = takeLookUps(now, notSent);
                    if (!asks.isEmpty()) {
                        // Only the question is written, as a control frame: the event itself never is.
                        resolve(target, asks, "asked before failing it as too late");
                        text = target.control.pollFirst();
                    }
                }
                if (text == null && target.gate.mayWriteEvent() && pace.mayWrite(now, target.unanswered)) {
                    Pending next = takeEvent(now, notSent);
                    if (next != null) {
                        next.writtenAt = now;
                        counters.eventsSent.incrementAndGet();
                        next.answerBy = Math.min(now + next.publication.timeout().toNanos(), next.publication.sendBy());
                        target.expect(next);
                        target.gate.eventWritten();
                        pace.written(now);
                        text = next.frame;
                        target.writingFrame = next;
                    }
                }
                if (text != null) {
                    target.writing = true;
                }
            } finally {
                lock.unlock();
            }
            answerUnsent(notSent);
            if (text == null) {
                return;
            }
            CompletableFuture<WebSocket> sent = target.link.write(text);
            if (!sent.isDone()) {
                sent.whenComplete((socket, error) -> {
                    written(target, error);
                    pump();
                });
                return;
            }
            written(target, sent.isCompletedExceptionally() ? exceptionOf(sent) : null);
        }
    }

    /**
     * Up to {@value #IDS_PER_REQ} look-ups to ask in one {@code REQ}, oldest first; those past their deadline or whose
     * claim was lost go to {@code unsent} instead.
     */
    // guarded by lock
    private List<Pending> takeLookUps(long now, List<Pending> unsent) {
        List<Pending> asks = new ArrayList<>();
        Pending next;
        while (asks.size() < IDS_PER_REQ && (next = lookUps.pollFirst()) != null) {
            if (now - next.publication.sendBy() > 0 || !next.publication.held().getAsBoolean()) {
                unsent.add(next);
                continue;
            }
            next.writtenAt = now;
            next.answerBy = Math.min(now + next.publication.timeout().toNanos(), next.publication.sendBy());
            asks.add(next);
        }
        return asks;
    }

    /**
     * The next event frame to write: one the relay refused for now first, then the oldest queued; those past their
     * deadline or whose claim was lost go to {@code unsent} instead.
     */
    // guarded by lock
    private Pending takeEvent(long now, List<Pending> unsent) {
        Pending next;
        while ((next = resends.isEmpty() ? queued.pollFirst() : resends.pollFirst()) != null) {
            if (now - next.publication.sendBy() > 0 || !next.publication.held().getAsBoolean()) {
                unsent.add(next);
                continue;
            }
            return next;
        }
        return null;
    }

    /** Answers frames that were never (again) written: their deadline passed or their claim was lost. */
    private void answerUnsent(List<Pending> unsent) {
        for (Pending pending : unsent) {
            PublishResult result = unsent(pending,
                    "deadline: the send deadline passed before the frame reached the socket");
            if (result instanceof PublishResult.NotSent) {
                counters.notSent.incrementAndGet();
            }
            pending.answer(result);
        }
    }

    private void written(Session target, Throwable error) {
        lock.lock();
        try {
            target.writing = false;
            target.writingFrame = null;
        } finally {
            lock.unlock();
        }
        if (error != null) {
            target.link.abort("sending failed: " + RelayConnection.describe(error));
        }
    }

    // ---------------------------------------------------------------------------------------------------
    // Connections

    /** The connection layer's news: a link opened, a message, AUTH, a link ended, an attempt failed. */
    private final class Events implements RelayConnection.Listener {
        @Override
        public void opened(RelayConnection.Link link) {
            Session fresh = new Session(link, new WriteGate(System.nanoTime(), settings.authChallengeWait().toNanos()));
            boolean abandon;
            lock.lock();
            try {
                abandon = closed;
                if (!abandon) {
                    fresh.open = true;
                    session = fresh;
                }
            } finally {
                lock.unlock();
            }
            if (abandon) {
                link.abort("relay client closed");
                return;
            }
            link.healthy();
            counters.connections.incrementAndGet();
            LOG.info("connected to relay {}", settings.url());
            pump(); // what waited for the connection goes at once: the first event frame needs no challenge
        }

        @Override
        public void received(RelayConnection.Link link, RelayMessage message) {
            Session on = session;
            if (on != null && on.link == link) {
                on.receive(message);
            }
        }

        @Override
        public void challenged(RelayConnection.Link link, String challenge) {
            Session on = session;
            if (on != null && on.link == link) {
                on.challenged();
            }
        }

        @Override
        public void authAnswered(RelayConnection.Link link, boolean accepted, String message) {
            Session on = session;
            if (on != null && on.link == link) {
                on.authAnswered(accepted, message);
            }
        }

        @Override
        public void ended(RelayConnection.Link link, int statusCode, String why, Duration retryIn) {
            Session dead;
            lock.lock();
            try {
                dead = session != null && session.link == link ? session : null;
            } finally {
                lock.unlock();
            }
            if (dead != null) {
                RelayClient.this.ended(dead, statusCode, why);
            }
        }

        @Override
        public void unreachable(String why, int failures, Duration retryIn) {
            connectFailed(why, failures);
        }
    }

    private void connectFailed(String reason, int failures) {
        List<Pending> expired = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (failures == 1) {
                LOG.warn("cannot connect to relay {}: {}", settings.url(), reason);
            } else {
                LOG.debug("cannot connect to relay {} (attempt {}): {}", settings.url(), failures, reason);
            }
            // Waiting publications learn at once that the relay is unreachable; they are retried by their owner.
            expired.addAll(takeWaiting());
        } finally {
            lock.unlock();
        }
        for (Pending pending : expired) {
            pending.answer(new PublishResult.NotSent("unreachable: cannot connect to " + settings.url() + ": "
                    + reason));
        }
    }

    /**
     * A connection ended: its unanswered frames are carried to the next one, which the connection layer starts after
     * its backoff.
     */
    private void ended(Session dead, int statusCode, String reason) {
        List<Pending> rejected = new ArrayList<>();
        lock.lock();
        try {
            if (dead.ended) {
                return;
            }
            dead.ended = true;
            if (closed) {
                return; // close() has answered everything
            }
            List<Pending> written = dead.written();
            if (statusCode == MESSAGE_TOO_BIG && !written.isEmpty()) {
                Pending largest = written.get(0);
                for (Pending pending : written) {
                    if (pending.frame.length() > largest.frame.length()) {
                        largest = pending;
                    }
                }
                written.remove(largest);
                rejected.add(largest);
                refusedFrameLength = Math.min(refusedFrameLength, largest.frame.length());
            }
            for (Resolution resolution : dead.resolutions.values()) {
                written.addAll(resolution.frames.values());
            }
            dead.resolutions.clear();
            for (Pending pending : written) {
                pending.dropped = true;
                pending.resolving = false;
                unresolved.add(pending);
            }
            if (session == dead) {
                session = null;
            }
        } finally {
            lock.unlock();
        }
        counters.drops.incrementAndGet();
        LOG.warn("lost the connection to relay {} ({}); reconnecting", settings.url(), reason);
        for (Pending pending : rejected) {
            pending.answer(tooLarge(pending, "the relay closed the connection on it (1009 message too big: "
                    + reason + ")"));
        }
    }

    // ---------------------------------------------------------------------------------------------------
    // The timer: deadlines, timeouts, AUTH hold, resolution (the connection layer pings)

    private void tick() {
        try {
            long now = System.nanoTime();
            List<Pending> notSent = new ArrayList<>();
            List<Pending> timedOut = new ArrayList<>();
            Session current;
            boolean abort = false;
            String abortWhy = null;
            List<Pending> unknown = new ArrayList<>();
            List<Resolution> overdue = new ArrayList<>();
            lock.lock();
            try {
                for (ArrayDeque<Pending> waiting : List.of(resends, queued, lookUps)) {
                    for (Iterator<Pending> it = waiting.iterator(); it.hasNext(); ) {
                        Pending pending = it.next();
                        if (now - pending.publication.sendBy() > 0) {
                            it.remove();
                            notSent.add(pending);
                        }
                    }
                }
                // Written to a connection that was lost, and no connection since to ask: past the deadline the
                // outcome stays unknown (the dispatcher retries; a resend is a duplicate at worst).
                for (Iterator<Pending> it = unresolved.iterator(); it.hasNext(); ) {
                    Pending pending = it.next();
                    if (now - pending.publication.sendBy() > 0) {
                        it.remove();
                        unknown.add(pending);
                    }
                }
                current = session;
                if (current != null && current.open && !current.ended) {
                    current.gate.expire(now);
                    if (current.writing && current.writingFrame != null
                            && now - current.writingFrame.publication.sendBy() > 0) {
                        abort = true;
                        abortWhy = "a frame was still being written at its send deadline (the relay stopped reading)";
                    }
                    for (Pending pending : current.written()) {
                        if (now - pending.answerBy > 0 && !pending.resolving) {
                            timedOut.add(pending);
                        }
                    }
                    current.timeoutsInARow += timedOut.size();
                    if (!abort && current.timeoutsInARow >= settings.timeoutsBeforeReconnect()
                            && now - current.link.lastHeardAt()
                            > settings.connectTimeout().toNanos() / 2) {
                        abort = true;
                        abortWhy = current.timeoutsInARow + " publishes got no answer in a row and nothing else "
                                + "was heard: the connection looks half-open";
                    }
                    if (!abort && current.gate.mayAsk() && !unresolved.isEmpty()) {
                        List<Pending> dropped = new ArrayList<>();
                        List<Pending> earlier = new ArrayList<>();
                        for (Pending pending : unresolved) {
                            (pending.writtenAt == 0 ? earlier : dropped).add(pending);
                        }
                        unresolved.clear();
                        if (!dropped.isEmpty()) {
                            resolve(current, dropped, "dropped");
                        }
                        if (!earlier.isEmpty()) {
                            resolve(current, earlier, "earlier claim");
                        }
                    }
                    if (!abort && !timedOut.isEmpty()) {
                        counters.timeouts.addAndGet(timedOut.size());
                        resolve(current, timedOut, "timeout");
                    }
                    for (Resolution resolution : current.resolutions.values()) {
                        if (now - resolution.answerBy > 0) {
                            overdue.add(resolution);
                        }
                    }
                }
            } finally {
                lock.unlock();
            }
            for (Pending pending : unknown) {
                pending.answer(new PublishResult.Transient(pending.writtenAt == 0
                        ? "unknown: no connection came in time to ask the relay whether it has the event an earlier"
                        + " claim may have sent"
                        : "dropped: the connection was lost before the relay answered, and no new connection came"
                        + " in time to ask whether it has the event"));
            }
            for (Resolution resolution : overdue) {
                resolved(current, resolution, new LookUpEnd.Unknown("got no answer within "
                        + settings.connectTimeout()));
            }
            answerUnsent(notSent);
            if (abort) {
                current.link.abort(abortWhy);
            }
            pump();
        } catch (RuntimeException e) {
            LOG.warn("relay client timer failed: {}", e.toString());
        }
    }

    /**
     * Asks {@code on} whether it has the events of {@code frames} (unknown outcomes), one {@code REQ} per
     * {@value #IDS_PER_REQ} ids; the answers are handled in {@link Session#receive}.
     */
    // guarded by lock
    private void resolve(Session on, List<Pending> frames, String why) {
        for (int from = 0; from < frames.size(); from += IDS_PER_REQ) {
            List<Pending> part = frames.subList(from, Math.min(frames.size(), from + IDS_PER_REQ));
            String subscription = "buzz-resolve-" + (++nextSubscription);
            StringBuilder req = new StringBuilder("[\"REQ\",\"").append(subscription).append("\",{\"ids\":[");
            Resolution resolution = new Resolution(subscription, why,
                    System.nanoTime() + settings.connectTimeout().toNanos());
            for (int i = 0; i < part.size(); i++) {
                Pending pending = part.get(i);
                pending.resolving = true;
                on.forget(pending);
                resolution.frames.put(pending.publication.eventId().hex(), pending);
                req.append(i == 0 ? "\"" : ",\"").append(pending.publication.eventId().hex()).append('"');
            }
            req.append("],\"limit\":").append(part.size()).append("}]");
            on.resolutions.put(subscription, resolution);
            on.control.addLast(req.toString());
        }
    }

    /**
     * A resolving {@code REQ} ended (EOSE, CLOSED, timeout): answer or resend its frames, or, when the relay wants AUTH
     * before it answers, authenticate and ask again.
     */
    private void resolved(Session on, Resolution resolution, LookUpEnd end) {
        List<Pending> found = new ArrayList<>();
        List<Pending> missing = new ArrayList<>();
        boolean authenticateNow = false;
        lock.lock();
        try {
            on.resolutions.remove(resolution.subscription);
            if (!on.ended) {
                on.control.addLast("[\"CLOSE\",\"" + resolution.subscription + "\"]");
            }
            if (end instanceof LookUpEnd.AuthFirst authFirst) {
                end = switch (on.authState) {
                    case ACCEPTED -> new LookUpEnd.Unknown("was refused after our AUTH (" + authFirst.why() + ")");
                    case REFUSED -> new LookUpEnd.Unknown("needs AUTH, and the relay refused ours ("
                            + on.authRefusal + ")");
                    case NONE, PENDING -> end;
                };
            }
            if (end instanceof LookUpEnd.AuthFirst authFirst) {
                // Asked again once the relay has answered our AUTH: never "not found" on an unauthenticated read.
                LOG.debug("relay {} answered {} before AUTH ({}); asking again after it", settings.url(),
                        resolution.subscription, authFirst.why());
                authenticateNow = on.askAfterAuth(resolution.frames.values());
            } else {
                for (Pending pending : resolution.frames.values()) {
                    pending.resolving = false;
                    if (resolution.found.contains(pending.publication.eventId().hex())) {
                        found.add(pending);
                    } else {
                        missing.add(pending);
                    }
                }
                long now = System.nanoTime();
                for (Iterator<Pending> it = missing.iterator(); it.hasNext(); ) {
                    Pending pending = it.next();
                    // Known not to be at the relay after a lost connection: send it again, as if it had waited.
                    if (end instanceof LookUpEnd.Complete && pending.dropped && !pending.lookUpOnly
                            && now - pending.publication.sendBy() < 0
                            && pending.publication.held().getAsBoolean()) {
                        it.remove();
                        pending.writtenAt = 0;
                        pending.dropped = false;
                        resends.addLast(pending);
                        counters.resent.incrementAndGet();
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        if (authenticateNow) {
            authenticate(on);
        }
        counters.found.addAndGet(found.size());
        for (Pending pending : found) {
            pending.answer(new PublishResult.Published(PublishResult.Acceptance.FOUND,
                    "the relay's answer was lost (" + resolution.why + "); it has the event"));
        }
        String unknown = end instanceof LookUpEnd.Unknown why ? why.why() : "";
        for (Pending pending : missing) {
            if (pending.lookUpOnly) {
                pending.answer(new PublishResult.Transient(end instanceof LookUpEnd.Complete
                        ? "not-found: the relay does not have the event"
                        : "unknown: asking the relay for the event " + unknown));
                continue;
            }
            pending.answer(new PublishResult.Transient(resolution.why + ": no answer from the relay"
                    + (end instanceof LookUpEnd.Complete ? ", and it does not have the event"
                    : ", and asking it for the event " + unknown)));
        }
        pump();
    }

    /** Puts AUTH for the connection's latest challenge first among the frames to write (NIP-42). */
    private void authenticate(Session on) {
        Optional<String> auth = on.link.authEvent(authSigner, clock);
        if (auth.isEmpty()) {
            return;
        }
        lock.lock();
        try {
            on.control.addFirst(auth.get());
        } finally {
            lock.unlock();
        }
        pump();
    }

    // ---------------------------------------------------------------------------------------------------

    /** One publication from {@link #publish(Publication, Consumer)} until its answer. */
    private static final class Pending {
        final Publication publication;
        final Consumer<PublishResult> callback;
        final String frame;
        /** Only ask the relay whether it has the event ({@link #lookUp}); the frame is never written. */
        final boolean lookUpOnly;
        // guarded by the client's lock
        long writtenAt;
        long answerBy;
        boolean authRetried;
        boolean resolving;
        boolean dropped;
        /** Why and in which words the relay last refused this frame for now; null when it never did. */
        Refusal refusal;
        private boolean answered;

        Pending(Publication publication, Consumer<PublishResult> callback, boolean lookUpOnly) {
            this.publication = publication;
            this.callback = callback;
            this.lookUpOnly = lookUpOnly;
            this.frame = lookUpOnly ? "" : "[\"EVENT\"," + publication.eventJson() + "]";
        }

        /** Answers once; later answers (a late OK after a timeout, say) are ignored. */
        void answer(PublishResult result) {
            synchronized (this) {
                if (answered) {
                    return;
                }
                answered = true;
            }
            try {
                callback.accept(result);
            } catch (RuntimeException e) {
                LOG.warn("a publish callback failed: {}", e.toString());
            }
        }
    }

    /**
     * The relay refused a frame for now, to be written again: after AUTH ({@code auth-required:}) or at a slower pace
     * ({@code rate-limited:}).
     *
     * @param reason which of the two
     * @param words  the relay's message
     */
    private record Refusal(Reason reason, String words) {
        enum Reason { AUTH_REQUIRED, RATE_LIMITED }
    }

    /** A {@code REQ} asking whether the relay has some events. */
    private static final class Resolution {
        final String subscription;
        final String why;
        final long answerBy;
        final Map<String, Pending> frames = new HashMap<>();
        final Set<String> found = new HashSet<>();

        Resolution(String subscription, String why, long answerBy) {
            this.subscription = subscription;
            this.why = why;
            this.answerBy = answerBy;
        }
    }

    /** The publishing state of one connection to the relay (one {@link RelayConnection.Link}). */
    private final class Session {
        final RelayConnection.Link link;
        // guarded by the client's lock
        final WriteGate gate;
        boolean open;
        boolean ended;
        boolean writing;
        /** Event frames written and still waiting for their {@code OK} (those in {@link #waiting}). */
        int unanswered;
        Pending writingFrame;
        final ArrayDeque<String> control = new ArrayDeque<>();
        /** Written frames waiting for their OK, by event id (oldest first per id). */
        private final Map<String, ArrayDeque<Pending>> waiting = new HashMap<>();
        final Map<String, Resolution> resolutions = new HashMap<>();
        AuthState authState = AuthState.NONE;
        /** The relay's words when it refused our AUTH. */
        String authRefusal;
        int timeoutsInARow;
        /** NOTICEs heard on this connection. */
        final AtomicInteger notices = new AtomicInteger();

        Session(RelayConnection.Link link, WriteGate gate) {
            this.link = link;
            this.gate = gate;
        }

        // guarded by the client's lock
        void expect(Pending pending) {
            waiting.computeIfAbsent(pending.publication.eventId().hex(), id -> new ArrayDeque<>(1)).addLast(pending);
            unanswered++;
        }

        // guarded by the client's lock
        void forget(Pending pending) {
            ArrayDeque<Pending> queue = waiting.get(pending.publication.eventId().hex());
            if (queue != null && queue.remove(pending)) {
                unanswered--;
                if (queue.isEmpty()) {
                    waiting.remove(pending.publication.eventId().hex());
                }
            }
        }

        /**
         * Puts the frames of a question the relay would not answer before AUTH back to be asked again, holds this
         * connection for AUTH, and says whether AUTH should be sent now (its challenge is known and none is under
         * way); without a challenge yet, {@link #challenged} sends it when it comes.
         */
        // guarded by the client's lock
        boolean askAfterAuth(java.util.Collection<Pending> frames) {
            List<Pending> lookUpsAgain = new ArrayList<>();
            for (Pending pending : frames) {
                pending.resolving = false;
                if (pending.lookUpOnly) {
                    lookUpsAgain.add(pending);
                } else {
                    unresolved.add(pending);
                }
            }
            for (int i = lookUpsAgain.size() - 1; i >= 0; i--) {
                lookUps.addFirst(lookUpsAgain.get(i));
            }
            counters.askedAgainAfterAuth.addAndGet(frames.size());
            if (gate.state() != WriteGate.State.AUTHENTICATING) {
                gate.authenticating(System.nanoTime() + settings.connectTimeout().toNanos());
            }
            if (authState == AuthState.NONE && link.challenge().isPresent()) {
                authState = AuthState.PENDING;
                return true;
            }
            return false;
        }

        /** Written frames still waiting for their OK (not those being resolved). */
        // guarded by the client's lock
        List<Pending> written() {
            List<Pending> all = new ArrayList<>();
            waiting.values().forEach(all::addAll);
            return all;
        }

        void receive(RelayMessage message) {
            switch (message) {
                case RelayMessage.Ok ok -> answered(ok);
                case RelayMessage.Auth auth -> {
                    // the connection layer passes challenges to challenged()
                }
                case RelayMessage.Event event -> {
                    lock.lock();
                    try {
                        heard();
                        Resolution resolution = resolutions.get(event.subscription());
                        if (resolution != null) {
                            resolution.found.add(event.eventId());
                        }
                    } finally {
                        lock.unlock();
                    }
                }
                case RelayMessage.EndOfStoredEvents eose -> endOfResolution(eose.subscription(), null);
                case RelayMessage.Closed closedSubscription -> endOfResolution(closedSubscription.subscription(),
                        LookUpEnd.closed(closedSubscription.message()));
                case RelayMessage.Notice notice -> notice(notice);
                case RelayMessage.Other other -> LOG.debug("ignoring {} from relay {}", other.type(), settings.url());
            }
        }

        /**
         * Logs the first {@link #NOTICES_LOGGED} NOTICEs of this connection at INFO (their words already cut to
         * {@link RelayMessage#MAX_WORDS}), then says once that the rest go to DEBUG: a relay cannot fill the log.
         */
        private void notice(RelayMessage.Notice notice) {
            int seen = notices.incrementAndGet();
            if (seen <= NOTICES_LOGGED) {
                LOG.info("NOTICE from relay {}: {}", settings.url(), notice.message());
            } else {
                if (seen == NOTICES_LOGGED + 1) {
                    LOG.info("relay {} sent more than {} NOTICEs on this connection; further ones are logged at"
                            + " DEBUG", settings.url(), NOTICES_LOGGED);
                }
                LOG.debug("NOTICE from relay {}: {}", settings.url(), notice.message());
            }
        }

        // guarded by the client's lock
        private void heard() {
            timeoutsInARow = 0;
        }

        /** A question ended: by {@code CLOSED} ({@code closed}), or by {@code EOSE} when {@code closed} is null. */
        private void endOfResolution(String subscription, LookUpEnd closed) {
            Resolution resolution;
            LookUpEnd end;
            lock.lock();
            try {
                heard();
                resolution = resolutions.get(subscription);
                end = closed != null ? closed : LookUpEnd.endOfStoredEvents(link.challenge().isPresent(),
                        authState == AuthState.ACCEPTED);
            } finally {
                lock.unlock();
            }
            if (resolution != null) {
                resolved(this, resolution, end);
            }
        }

        /** The relay sent a challenge: AUTH goes before anything else, unless ours is already on its way. */
        void challenged() {
            lock.lock();
            try {
                heard();
                gate.authenticating(System.nanoTime() + settings.connectTimeout().toNanos());
                if (authState == AuthState.PENDING && link.authPending()) {
                    return;
                }
                authState = AuthState.PENDING;
            } finally {
                lock.unlock();
            }
            authenticate(this);
        }

        /** The relay's {@code OK} to our AUTH: the hold ends either way; a refusal is logged and counted. */
        void authAnswered(boolean accepted, String message) {
            List<Pending> refused = new ArrayList<>();
            lock.lock();
            try {
                heard();
                gate.authAnswered();
                authState = accepted ? AuthState.ACCEPTED : AuthState.REFUSED;
                authRefusal = accepted ? null : message;
                if (!accepted) {
                    // What waited for this AUTH would only be refused again.
                    for (Iterator<Pending> it = resends.iterator(); it.hasNext(); ) {
                        Pending pending = it.next();
                        if (pending.refusal != null && pending.refusal.reason() == Refusal.Reason.AUTH_REQUIRED) {
                            it.remove();
                            refused.add(pending);
                        }
                    }
                }
            } finally {
                lock.unlock();
            }
            for (Pending pending : refused) {
                pending.answer(new PublishResult.Transient("auth-required: the relay refused our AUTH (" + message
                        + ")"));
            }
            if (accepted) {
                LOG.info("authenticated to relay {} (NIP-42)", settings.url());
            } else {
                counters.authRefusals.incrementAndGet();
                LOG.warn("relay {} refused our NIP-42 AUTH (relay tag {}): {}{}", settings.url(), settings.authUrl(),
                        message, settings.authUrl().equals(settings.url()) ? "; a relay that checks the relay tag"
                                + " against its public URL needs BUZZ_RELAY_AUTH_URL set to that URL" : "");
            }
            pump();
        }

        private void answered(RelayMessage.Ok ok) {
            Pending pending;
            boolean resend = false;
            boolean authenticateNow = false;
            lock.lock();
            try {
                heard();
                ArrayDeque<Pending> queue = waiting.get(ok.eventId());
                pending = queue == null ? null : queue.pollFirst();
                if (queue != null && queue.isEmpty()) {
                    waiting.remove(ok.eventId());
                }
                if (pending != null) {
                    unanswered--;
                }
                long now = System.nanoTime();
                if (pending != null && ok.authRequired() && !pending.authRetried
                        && authState != AuthState.REFUSED) {
                    // Sent once more after AUTH: at once when this connection is authenticated already, else
                    // once the relay answers the AUTH (started here when its challenge is known).
                    pending.authRetried = true;
                    pending.writtenAt = 0;
                    pending.refusal = new Refusal(Refusal.Reason.AUTH_REQUIRED, ok.message());
                    resends.addLast(pending);
                    resend = true;
                    if (authState != AuthState.ACCEPTED) {
                        gate.authenticating(now + settings.connectTimeout().toNanos());
                        if (authState == AuthState.NONE && link.challenge().isPresent()) {
                            authState = AuthState.PENDING;
                            authenticateNow = true;
                        }
                    }
                } else if (pending != null && ok.rateLimited()) {
                    // Sent again by this client at the pace the relay turns out to take, until its deadline.
                    pace.rateLimited(pending.writtenAt, now);
                    pending.writtenAt = 0;
                    pending.refusal = new Refusal(Refusal.Reason.RATE_LIMITED, ok.message());
                    resends.addLast(pending);
                    resend = true;
                    counters.rateLimited.incrementAndGet();
                } else if (pending != null) {
                    gate.answered();
                    pace.accepted(pending.writtenAt, now);
                }
            } finally {
                lock.unlock();
            }
            if (pending == null) {
                LOG.debug("OK from relay {} for {} that nobody waits for (late answer?)", settings.url(), ok.eventId());
                return;
            }
            if (resend) {
                if (authenticateNow) {
                    authenticate(this);
                }
                pump();
                return;
            }
            PublishResult result = ok.toPublishResult();
            if (ok.authRequired()) {
                result = new PublishResult.Transient(authState == AuthState.REFUSED
                        ? "auth-required: the relay refused our AUTH (" + authRefusal + ")"
                        : "auth-required: the relay still requires AUTH after ours (" + ok.message() + ")");
            }
            pending.answer(result);
        }
    }

    /** Where a connection stands with NIP-42. */
    private enum AuthState {
        /** No AUTH sent. */
        NONE,
        /** AUTH sent, no answer yet. */
        PENDING,
        /** The relay accepted our AUTH. */
        ACCEPTED,
        /** The relay refused our AUTH. */
        REFUSED
    }

    /**
     * What the client has seen since it was made.
     *
     * @param connections  connections opened
     * @param drops        connections lost or ended by us (half-open, no pong, a stalled write)
     * @param timeouts     frames that got no OK in time (then resolved by asking the relay)
     * @param found        unknown outcomes the relay turned out to have
     * @param resent       frames sent again after a lost connection because the relay did not have them
     * @param notSent      frames never written (deadline passed, claim lost)
     * @param tooLarge     frames refused as too large for the relay
     * @param authRefusals NIP-42 AUTH attempts the relay refused
     * @param rateLimited  frames the relay answered {@code rate-limited:} (each sent again at the learnt pace)
     * @param askedAgain   look-up answers given before AUTH, asked again after it
     * @param eventsSent   {@code EVENT} frames written to the relay's connection (resends included)
     */
    public record Counts(long connections, long drops, long timeouts, long found, long resent, long notSent,
                         long tooLarge, long authRefusals, long rateLimited, long askedAgain, long eventsSent) {
    }

    private static final class Counters {
        final AtomicLong connections = new AtomicLong();
        final AtomicLong drops = new AtomicLong();
        final AtomicLong timeouts = new AtomicLong();
        final AtomicLong found = new AtomicLong();
        final AtomicLong resent = new AtomicLong();
        final AtomicLong notSent = new AtomicLong();
        final AtomicLong tooLarge = new AtomicLong();
        final AtomicLong authRefusals = new AtomicLong();
        final AtomicLong rateLimited = new AtomicLong();
        final AtomicLong askedAgainAfterAuth = new AtomicLong();
        final AtomicLong eventsSent = new AtomicLong();

        Counts snapshot() {
            return new Counts(connections.get(), drops.get(), timeouts.get(), found.get(), resent.get(),
                    notSent.get(), tooLarge.get(), authRefusals.get(), rateLimited.get(), askedAgainAfterAuth.get(),
                    eventsSent.get());
        }
    }

    private static Throwable exceptionOf(CompletableFuture<?> future) {
        try {
            future.join();
            return null;
        } catch (RuntimeException e) {
            return e.getCause() != null ? e.getCause() : e;
        }
    }
}
