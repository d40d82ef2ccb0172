package buzz.scheduled.adapters.relay;

import buzz.scheduled.application.port.out.PublishResult;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * The publishing state of one connection to the relay (one {@link RelayConnection.Link}): the frames written on it
 * and waiting for their {@code OK}, its open {@link LookUp}s, its {@link WriteGate} and where it stands with NIP-42.
 * It hears the relay's messages and the owner's ticks and returns {@link Decision}s about the owner's queues and
 * callbacks instead of acting on them. Guarded by the owner's lock, except where said.
 */
final class Session {
    /** NOTICEs logged at INFO per connection; the rest at DEBUG. */
    static final int NOTICES_LOGGED = 20;

    final RelayConnection.Link link;
    final WriteGate gate;
    boolean open;
    boolean ended;
    boolean writing;
    /** Event frames written and still waiting for their {@code OK} (those in {@link #waiting}). */
    int unanswered;
    Frame writingFrame;
    /** Control frames (AUTH, REQ, CLOSE) to write before any event frame. */
    final ArrayDeque<String> control = new ArrayDeque<>();
    /** The open look-ups, by subscription. */
    final Map<String, LookUp> lookUps = new HashMap<>();
    private final RelaySettings settings;
    private final SendPace pace;
    private final RelayCounters counters;
    private final Logger log;
    /** Written frames waiting for their OK, by event id (oldest first per id). */
    private final Map<String, ArrayDeque<Frame>> waiting = new HashMap<>();
    private AuthState authState = AuthState.NONE;
    /** The relay's words when it refused our AUTH. */
    private String authRefusal;
    private int timeoutsInARow;
    /** NOTICEs heard on this connection (counted without the lock). */
    private final AtomicInteger notices = new AtomicInteger();

    Session(RelayConnection.Link link, WriteGate gate, RelaySettings settings, SendPace pace, RelayCounters counters,
            Logger log) {
        this.link = link;
        this.gate = gate;
        this.settings = settings;
        this.pace = pace;
        this.counters = counters;
        this.log = log;
    }

    /** Open, not ended, and not waiting for the relay to answer our AUTH. */
    boolean isConnected() {
        return open && !ended && gate.state() != WriteGate.State.AUTHENTICATING;
    }

    /** {@code frame} was written now: its {@code OK} is awaited. */
    void written(Frame frame, long now) {
        frame.written(now, Math.min(now + frame.publication.timeout().toNanos(), frame.publication.sendBy()));
        waiting.computeIfAbsent(frame.eventId(), id -> new ArrayDeque<>(1)).addLast(frame);
        unanswered++;
        gate.eventWritten();
        pace.written(now);
    }

    private void forget(Frame frame) {
        ArrayDeque<Frame> queue = waiting.get(frame.eventId());
        if (queue != null && queue.remove(frame)) {
            unanswered--;
            if (queue.isEmpty()) {
                waiting.remove(frame.eventId());
            }
        }
    }

    /** Written frames still waiting for their OK (not those being asked about). */
    List<Frame> written() {
        List<Frame> all = new ArrayList<>();
        waiting.values().forEach(all::addAll);
        return all;
    }

    /** Every frame on this connection: written and waiting for its {@code OK}, or asked about. */
    List<Frame> frames() {
        List<Frame> all = written();
        lookUps.values().forEach(lookUp -> all.addAll(lookUp.frames()));
        return all;
    }

    /**
     * Asks the relay whether it has the events of {@code frames} (unknown outcomes), one {@code REQ} per
     * {@value LookUp#IDS_PER_REQ} ids queued as control frames; the answers come to {@link #receive}.
     */
    void ask(List<Frame> frames, String why, long now, LongSupplier numbers) {
        frames.forEach(this::forget);
        for (LookUp lookUp : LookUp.of(frames, why, now + settings.connectTimeout().toNanos(), numbers)) {
            lookUps.put(lookUp.subscription, lookUp);
            control.addLast(lookUp.request());
        }
    }

    /** A message from the relay on this connection; the decisions are the owner's to apply. */
    List<Decision> receive(RelayMessage message, long now) {
        return switch (message) {
            case RelayMessage.Ok ok -> answered(ok, now);
            case RelayMessage.Auth auth -> List.of(); // the connection layer passes challenges to challenged()
            case RelayMessage.Event event -> {
                heard();
                LookUp lookUp = lookUps.get(event.subscription());
                if (lookUp != null) {
                    lookUp.found(event.eventId());
                }
                yield List.of();
            }
            case RelayMessage.EndOfStoredEvents eose -> lookUpEnded(eose.subscription(),
                    new LookUpOutcome.EndOfStoredEvents(), now);
            case RelayMessage.Closed closed -> lookUpEnded(closed.subscription(),
                    new LookUpOutcome.Closed(closed.message()), now);
            case RelayMessage.Notice notice -> {
                notice(notice);
                yield List.of();
            }
            case RelayMessage.Other other -> {
                log.debug("ignoring {} from relay {}", other.type(), settings.url());
                yield List.of();
            }
        };
    }

    /**
     * Logs the first {@link #NOTICES_LOGGED} NOTICEs of this connection at INFO (their words already cut to
     * {@link RelayMessage#MAX_WORDS}), then says once that the rest go to DEBUG: a relay cannot fill the log.
     */
    private void notice(RelayMessage.Notice notice) {
        int seen = notices.incrementAndGet();
        if (seen <= NOTICES_LOGGED) {
            log.info("NOTICE from relay {}: {}", settings.url(), notice.message());
        } else {
            if (seen == NOTICES_LOGGED + 1) {
                log.info("relay {} sent more than {} NOTICEs on this connection; further ones are logged at"
                        + " DEBUG", settings.url(), NOTICES_LOGGED);
            }
            log.debug("NOTICE from relay {}: {}", settings.url(), notice.message());
        }
    }

    private void heard() {
        timeoutsInARow = 0;
    }

    /**
     * The look-up {@code subscription} ended with {@code outcome}: its frames are answered, sent again, or asked
     * again (after AUTH, when the relay wants it before it answers; on the next connection, when this one was lost).
     * Nothing when it ended already.
     */
    List<Decision> lookUpEnded(String subscription, LookUpOutcome outcome, long now) {
        LookUp lookUp = lookUps.remove(subscription);
        List<Decision> decisions = new ArrayList<>();
        LookUpEnd end = switch (outcome) {
            case LookUpOutcome.EndOfStoredEvents eose -> {
                heard();
                yield LookUpEnd.endOfStoredEvents(link.challenge().isPresent(), authState == AuthState.ACCEPTED);
            }
            case LookUpOutcome.Closed closed -> {
                heard();
                yield LookUpEnd.closed(closed.reason());
            }
            case LookUpOutcome.TimedOut timedOut -> new LookUpEnd.Unknown("got no answer within " + timedOut.after());
            case LookUpOutcome.ConnectionLost lost -> {
                if (lookUp != null) {
                    for (Frame frame : lookUp.frames()) {
                        frame.connectionLost();
                        decisions.add(new Decision.AskAgain(frame));
                    }
                }
                yield null; // asked again on the next connection, which says nothing to this one
            }
        };
        if (lookUp == null || end == null) {
            return decisions;
        }
        if (!ended) {
            control.addLast(lookUp.closeRequest());
        }
        decisions.add(new Decision.Write());
        if (end instanceof LookUpEnd.AuthFirst authFirst) {
            end = switch (authState) {
                case ACCEPTED -> new LookUpEnd.Unknown("was refused after our AUTH (" + authFirst.why() + ")");
                case REFUSED -> new LookUpEnd.Unknown("needs AUTH, and the relay refused ours (" + authRefusal + ")");
                case NONE, PENDING -> end;
            };
        }
        if (end instanceof LookUpEnd.AuthFirst authFirst) {
            // Asked again once the relay has answered our AUTH: never "not found" on an unauthenticated read.
            log.debug("relay {} answered {} before AUTH ({}); asking again after it", settings.url(),
                    lookUp.subscription, authFirst.why());
            askAfterAuth(lookUp, now, decisions);
        } else {
            decisions.addAll(lookUp.settle(end, now, counters));
        }
        return decisions;
    }

    /**
     * Puts the frames of a question the relay would not answer before AUTH back to be asked again, holds this
     * connection for AUTH, and sends AUTH now when its challenge is known and none is under way; without a challenge
     * yet, {@link #challenged} sends it when it comes.
     */
    private void askAfterAuth(LookUp lookUp, long now, List<Decision> decisions) {
        for (Frame frame : lookUp.frames()) {
            frame.askAgainAfterAuth();
            decisions.add(new Decision.AskAgain(frame));
        }
        counters.askedAgainAfterAuth.addAndGet(lookUp.frames().size());
        if (gate.state() != WriteGate.State.AUTHENTICATING) {
            gate.authenticating(now + settings.connectTimeout().toNanos());
        }
        if (authState == AuthState.NONE && link.challenge().isPresent()) {
            authState = AuthState.PENDING;
            decisions.add(new Decision.Authenticate());
        }
    }

    /** The relay sent a challenge: AUTH goes before anything else, unless ours is already on its way. */
    List<Decision> challenged(long now) {
        heard();
        gate.authenticating(now + settings.connectTimeout().toNanos());
        if (authState == AuthState.PENDING && link.authPending()) {
            return List.of();
        }
        authState = AuthState.PENDING;
        return List.of(new Decision.Authenticate());
    }

    /** The relay's {@code OK} to our AUTH: the hold ends either way. */
    void authAnswered(boolean accepted, String message) {
        heard();
        gate.authAnswered();
        authState = accepted ? AuthState.ACCEPTED : AuthState.REFUSED;
        authRefusal = accepted ? null : message;
    }

    private List<Decision> answered(RelayMessage.Ok ok, long now) {
        heard();
        ArrayDeque<Frame> queue = waiting.get(ok.eventId());
        Frame frame = queue == null ? null : queue.pollFirst();
        if (queue != null && queue.isEmpty()) {
            waiting.remove(ok.eventId());
        }
        if (frame == null) {
            log.debug("OK from relay {} for {} that nobody waits for (late answer?)", settings.url(), ok.eventId());
            return List.of();
        }
        unanswered--;
        long writtenAt = frame.state() instanceof FrameState.Written written ? written.at() : now;
        if (ok.authRequired() && !frame.authRetried() && authState != AuthState.REFUSED) {
            // Sent once more after AUTH: at once when this connection is authenticated already, else once the relay
            // answers the AUTH (started here when its challenge is known).
            frame.refused(new Frame.Refusal(Frame.Refusal.Reason.AUTH_REQUIRED, ok.message()));
            List<Decision> decisions = new ArrayList<>(List.of(new Decision.Resend(frame)));
            if (authState != AuthState.ACCEPTED) {
                gate.authenticating(now + settings.connectTimeout().toNanos());
                if (authState == AuthState.NONE && link.challenge().isPresent()) {
                    authState = AuthState.PENDING;
                    decisions.add(new Decision.Authenticate());
                }
            }
            return decisions;
        }
        if (ok.rateLimited()) {
            // Sent again by the client at the pace the relay turns out to take, until its deadline.
            pace.rateLimited(writtenAt, now);
            frame.refused(new Frame.Refusal(Frame.Refusal.Reason.RATE_LIMITED, ok.message()));
            counters.rateLimited.incrementAndGet();
            return List.of(new Decision.Resend(frame));
        }
        gate.answered();
        pace.accepted(writtenAt, now);
        PublishResult result = ok.toPublishResult();
        if (ok.authRequired()) {
            result = new PublishResult.Transient(authState == AuthState.REFUSED
                    ? "auth-required: the relay refused our AUTH (" + authRefusal + ")"
                    : "auth-required: the relay still requires AUTH after ours (" + ok.message() + ")");
        }
        return List.of(new Decision.Answer(frame, result));
    }

    /**
     * Once per tick: ends the hold of the gate when due, asks about {@code unresolved} frames (emptied) when the
     * relay may be asked, and about written frames whose {@code OK} is overdue; ends the connection when a frame is
     * still being written at its deadline or the connection looks half-open.
     */
    List<Decision> tick(long now, List<Frame> unresolved, LongSupplier numbers) {
        gate.expire(now);
        String endWhy = null;
        if (writing && writingFrame != null && now - writingFrame.publication.sendBy() > 0) {
            endWhy = "a frame was still being written at its send deadline (the relay stopped reading)";
        }
        List<Frame> timedOut = new ArrayList<>();
        for (Frame frame : written()) {
            if (frame.state() instanceof FrameState.Written written && now - written.answerBy() > 0) {
                timedOut.add(frame);
            }
        }
        timeoutsInARow += timedOut.size();
        if (endWhy == null && timeoutsInARow >= settings.timeoutsBeforeReconnect()
                && now - link.lastHeardAt() > settings.connectTimeout().toNanos() / 2) {
            endWhy = timeoutsInARow + " publishes got no answer in a row and nothing else was heard: the connection"
                    + " looks half-open";
        }
        if (endWhy == null && gate.mayAsk() && !unresolved.isEmpty()) {
            List<Frame> dropped = new ArrayList<>();
            List<Frame> earlier = new ArrayList<>();
            for (Frame frame : unresolved) {
                (frame.wasWritten() ? dropped : earlier).add(frame);
            }
            unresolved.clear();
            if (!dropped.isEmpty()) {
                ask(dropped, "dropped", now, numbers);
            }
            if (!earlier.isEmpty()) {
                ask(earlier, "earlier claim", now, numbers);
            }
        }
        if (endWhy == null && !timedOut.isEmpty()) {
            counters.timeouts.addAndGet(timedOut.size());
            ask(timedOut, "timeout", now, numbers);
        }
        return endWhy == null ? List.of() : List.of(new Decision.EndConnection(endWhy));
    }

    /** The subscriptions of the look-ups the relay did not end in time. */
    List<String> overdueLookUps(long now) {
        List<String> overdue = new ArrayList<>();
        for (LookUp lookUp : lookUps.values()) {
            if (now - lookUp.answerBy > 0) {
                overdue.add(lookUp.subscription);
            }
        }
        return overdue;
    }

    /** The longest frame written on this connection and waiting for its {@code OK}, if any. */
    Optional<Frame> longestWritten() {
        Frame longest = null;
        for (Frame frame : written()) {
            if (longest == null || frame.text.length() > longest.text.length()) {
                longest = frame;
            }
        }
        return Optional.ofNullable(longest);
    }

    /**
     * The connection ended: every frame written on it (except {@code rejected}, answered by the owner) or asked about
     * on it is asked about again on the next one, the frames that waited for their {@code OK} first.
     */
    List<Decision> lost(Frame rejected) {
        List<Decision> decisions = new ArrayList<>();
        for (Frame frame : written()) {
            if (frame != rejected) {
                frame.connectionLost();
                decisions.add(new Decision.AskAgain(frame));
            }
        }
        for (String subscription : List.copyOf(lookUps.keySet())) {
            decisions.addAll(lookUpEnded(subscription, new LookUpOutcome.ConnectionLost(), 0));
        }
        return decisions;
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
}
