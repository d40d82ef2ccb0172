package buzz.scheduled.adapters.relay;

import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.WallClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;

/**
 * What the relay client does behind its port: decides what is written when on its {@link RelayConnection} (the
 * window of frames, their deadlines, the hold until AUTH) and carries out what each connection's
 * {@link Session} decides about the relay's answers. The client's documentation says what it guarantees.
 */
final class PublishLoop {
    /**
     * Most look-ups open at once on a connection before a look-up waits its turn: relays limit open subscriptions
     * per connection (strfry and khatru do), and one refused would leave its events unknown.
     */
    static final int MAX_OPEN_LOOK_UPS = 2;
    private static final int MESSAGE_TOO_BIG = 1009;

    private final RelaySettings settings;
    private final AuthEventSigner authSigner;
    private final WallClock clock;
    private final RelayConnection relay;
    private final Logger log;
    final RelayCounters counters = new RelayCounters();

    private final ReentrantLock lock = new ReentrantLock();
    // guarded by lock
    private final FrameQueues frames = new FrameQueues();
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
     * @param log        where the client logs
     * @param relay      the connection, whose news the owner passes to this loop
     */
    PublishLoop(RelaySettings settings, AuthEventSigner authSigner, WallClock clock, Logger log,
                RelayConnection relay) {
        this.settings = settings;
        this.authSigner = authSigner;
        this.clock = clock;
        this.log = log;
        this.relay = relay;
    }

    /** Starts connecting unless connected or connecting; false once closed. */
    boolean connect() {
        lock.lock();
        try {
            if (!closed) {
                relay.connect();
            }
            return !closed;
        } finally {
            lock.unlock();
        }
    }

    /** Whether a connection is open and not waiting for the relay to answer our AUTH. */
    boolean isConnected() {
        lock.lock();
        try {
            return session != null && session.isConnected();
        } finally {
            lock.unlock();
        }
    }

    /** Takes {@code frame} to be asked about when a connection may ask; false once closed. */
    boolean resolveFirst(Frame frame) {
        lock.lock();
        try {
            if (!closed) {
                frames.unresolved.add(frame);
                relay.connect();
            }
            return !closed;
        } finally {
            lock.unlock();
        }
    }

    /** Takes {@code frame} to be written (or asked about), or answers it at once when it cannot be. */
    void enqueue(Frame frame) {
        PublishResult refusal = null;
        lock.lock();
        try {
            if (closed) {
                refusal = new PublishResult.NotSent("closed: the relay client for " + settings.url() + " is closed");
            } else if (!frame.lookUpOnly && frame.text.length() >= refusedFrameLength) {
                refusal = tooLarge(frame, "an earlier frame of " + refusedFrameLength + " characters made the relay "
                        + "close the connection (1009 message too big)");
            } else {
                frames.add(frame);
                relay.connect();
            }
        } finally {
            lock.unlock();
        }
        if (refusal != null) {
            frame.answer(refusal);
            return;
        }
        pump();
    }

    /** Takes back the frames not yet written, in their order, for the owner to answer. */
    List<Frame> withdraw() {
        lock.lock();
        try {
            return frames.takeWaiting();
        } finally {
            lock.unlock();
        }
    }

    /** Stops taking frames; the frames still waiting, for the owner to answer, or null when closed already. */
    List<Frame> close() {
        List<Frame> waiting = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return null;
            }
            closed = true;
            waiting.addAll(frames.takeAll());
            if (session != null) {
                waiting.addAll(session.frames());
            }
        } finally {
            lock.unlock();
        }
        return waiting;
    }

    private PublishResult tooLarge(Frame frame, String why) {
        counters.tooLarge.incrementAndGet();
        return new PublishResult.Rejected("too-large", "this frame has " + frame.text.length() + " characters; "
                + why);
    }

    /**
     * Writes queued frames while the connection is open and no write is in progress: AUTH and control frames first,
     * then events in order. Each event's deadline and claim are checked right before its frame is handed to the
     * socket.
     */
    private void pump() {
        while (true) {
            List<Frame> notSent = new ArrayList<>();
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
                if (text == null && target.gate.mayAsk() && target.lookUps.size() < MAX_OPEN_LOOK_UPS) {
                    List<Frame> asks = frames.takeLookUps(now, notSent);
                    if (!asks.isEmpty()) {
                        // Only the question is written, as a control frame: the event itself never is.
                        target.ask(asks, "asked before failing it as too late", now, () -> ++nextSubscription);
                        text = target.control.pollFirst();
                    }
                }
                if (text == null && target.gate.mayWriteEvent() && pace.mayWrite(now, target.unanswered)) {
                    Frame next = frames.takeEvent(now, notSent);
                    if (next != null) {
                        counters.eventsSent.incrementAndGet();
                        target.written(next, now);
                        text = next.text;
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
            CompletableFuture<?> sent = target.link.write(text);
            if (!sent.isDone()) {
                sent.whenComplete((socket, error) -> {
                    written(target, error);
                    pump();
                });
                return;
            }
            written(target, sent.isCompletedExceptionally() ? sent.exceptionNow() : null);
        }
    }

    /** Answers frames that were never (again) written: their deadline passed or their claim was lost. */
    private void answerUnsent(List<Frame> unsent) {
        for (Frame frame : unsent) {
            PublishResult result = frame.unsent(
                    "deadline: the send deadline passed before the frame reached the socket");
            if (result instanceof PublishResult.NotSent) {
                counters.notSent.incrementAndGet();
            }
            frame.answer(result);
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

    /** Carries out what {@code on} decided: the queue changes under the lock, then the rest in order. */
    private void apply(Session on, List<Decision> decisions) {
        if (decisions.isEmpty()) {
            return;
        }
        boolean write;
        lock.lock();
        try {
            write = queue(decisions);
        } finally {
            lock.unlock();
        }
        for (Decision decision : decisions) {
            switch (decision) {
                case Decision.Answer answer -> answer.frame().answer(answer.result());
                case Decision.Authenticate authenticate -> authenticate(on);
                case Decision.EndConnection end -> on.link.abort(end.why());
                case Decision.Resend resend -> {
                    // queued above
                }
                case Decision.AskAgain askAgain -> {
                    // queued above
                }
                case Decision.Write writeNow -> {
                    // written below
                }
            }
        }
        if (write) {
            pump();
        }
    }

    /** Makes the queue changes of {@code decisions}; whether anything may be written now. */
    // guarded by lock
    private boolean queue(List<Decision> decisions) {
        boolean write = false;
        List<Frame> again = new ArrayList<>();
        for (Decision decision : decisions) {
            write |= switch (decision) {
                case Decision.Answer answer -> false;
                case Decision.Resend resend -> frames.resend(resend.frame());
                case Decision.AskAgain askAgain -> again.add(askAgain.frame());
                case Decision.Authenticate authenticate -> true;
                case Decision.Write writeNow -> true;
                case Decision.EndConnection end -> true;
            };
        }
        frames.askAgain(again);
        return write;
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
    // Connections

    /** A link opened: its session starts, and what waited for a connection goes at once. */
    void opened(RelayConnection.Link link) {
        Session fresh = new Session(link, new WriteGate(System.nanoTime(), settings.authChallengeWait().toNanos()),
                settings, pace, counters, log);
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
        log.info("connected to relay {}", settings.url());
        pump(); // what waited for the connection goes at once: the first event frame needs no challenge
    }

    /** A message from the relay on {@code link}. */
    void received(RelayConnection.Link link, RelayMessage message) {
        decide(link, on -> on.receive(message, System.nanoTime()));
    }

    /** The relay sent a NIP-42 challenge on {@code link}. */
    void challenged(RelayConnection.Link link) {
        decide(link, on -> on.challenged(System.nanoTime()));
    }

    /** What the session of {@code link}, if it is the current one, decides, carried out. */
    private void decide(RelayConnection.Link link, Function<Session, List<Decision>> news) {
        Session on = session;
        if (on == null || on.link != link) {
            return;
        }
        List<Decision> decisions;
        lock.lock();
        try {
            decisions = news.apply(on);
        } finally {
            lock.unlock();
        }
        apply(on, decisions);
    }

    /** The relay's {@code OK} to our AUTH: the hold ends either way; a refusal is logged and counted. */
    void authAnswered(RelayConnection.Link link, boolean accepted, String message) {
        Session on = session;
        if (on == null || on.link != link) {
            return;
        }
        List<Frame> refused = List.of();
        lock.lock();
        try {
            on.authAnswered(accepted, message);
            if (!accepted) {
                refused = frames.takeAuthRefused(); // what waited for this AUTH would only be refused again
            }
        } finally {
            lock.unlock();
        }
        if (accepted) {
            log.info("authenticated to relay {} (NIP-42)", settings.url());
        } else {
            // Counted and logged before the answers, so that whoever hears one sees the refusal counted.
            counters.authRefusals.incrementAndGet();
            log.warn("relay {} refused our NIP-42 AUTH (relay tag {}): {}{}", settings.url(), settings.authUrl(),
                    message, settings.authUrl().equals(settings.url()) ? "; a relay that checks the relay tag"
                            + " against its public URL needs BUZZ_RELAY_AUTH_URL set to that URL" : "");
        }
        for (Frame frame : refused) {
            frame.answer(new PublishResult.Transient("auth-required: the relay refused our AUTH (" + message + ")"));
        }
        pump();
    }

    /** An attempt to connect failed ({@code failures} in a row): what waits is answered at once. */
    void unreachable(String reason, int failures) {
        List<Frame> expired = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (failures == 1) {
                log.warn("cannot connect to relay {}: {}", settings.url(), reason);
            } else {
                log.debug("cannot connect to relay {} (attempt {}): {}", settings.url(), failures, reason);
            }
            // Waiting publications learn at once that the relay is unreachable; they are retried by their owner.
            expired.addAll(frames.takeWaiting());
        } finally {
            lock.unlock();
        }
        for (Frame frame : expired) {
            frame.answer(new PublishResult.NotSent("unreachable: cannot connect to " + settings.url() + ": " + reason));
        }
    }

    /**
     * A connection ended: its unanswered frames are carried to the next one, which the connection layer starts after
     * its backoff; after a 1009 (message too big) the longest of them fails {@code too-large} instead.
     */
    void ended(RelayConnection.Link link, int statusCode, String reason) {
        Frame rejected = null;
        lock.lock();
        try {
            Session dead = session != null && session.link == link ? session : null;
            if (dead == null || dead.ended) {
                return;
            }
            dead.ended = true;
            if (closed) {
                return; // close() has answered everything
            }
            if (statusCode == MESSAGE_TOO_BIG) {
                rejected = dead.longestWritten().orElse(null);
                if (rejected != null) {
                    refusedFrameLength = Math.min(refusedFrameLength, rejected.text.length());
                }
            }
            queue(dead.lost(rejected));
            if (session == dead) {
                session = null;
            }
        } finally {
            lock.unlock();
        }
        counters.drops.incrementAndGet();
        log.warn("lost the connection to relay {} ({}); reconnecting", settings.url(), reason);
        if (rejected != null) {
            rejected.answer(tooLarge(rejected, "the relay closed the connection on it (1009 message too big: "
                    + reason + ")"));
        }
    }

    // ---------------------------------------------------------------------------------------------------
    // The timer: deadlines, timeouts, AUTH hold, resolution (the connection layer pings)

    /** Checks deadlines, timeouts, the AUTH hold and the look-ups; run by the owner's timer. */
    void tick() {
        try {
            long now = System.nanoTime();
            List<Frame> notSent = new ArrayList<>();
            List<Frame> unknown = new ArrayList<>();
            List<Decision> decisions = List.of();
            List<String> overdue = List.of();
            Session current;
            lock.lock();
            try {
                frames.expire(now, notSent, unknown);
                current = session;
                if (current != null && current.open && !current.ended) {
                    decisions = current.tick(now, frames.unresolved, () -> ++nextSubscription);
                    overdue = current.overdueLookUps(now);
                }
            } finally {
                lock.unlock();
            }
            unknown.forEach(frame -> frame.answer(frame.tooLateToAsk()));
            for (String subscription : overdue) {
                List<Decision> settled;
                lock.lock();
                try {
                    settled = current.lookUpEnded(subscription,
                            new LookUpOutcome.TimedOut(settings.connectTimeout()), System.nanoTime());
                } finally {
                    lock.unlock();
                }
                apply(current, settled);
            }
            answerUnsent(notSent);
            if (current != null) {
                apply(current, decisions);
            }
            pump();
        } catch (RuntimeException e) {
            log.warn("relay client timer failed: {}", e.toString());
        }
    }
}
