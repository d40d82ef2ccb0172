package buzz.scheduled.adapters.relay;

import buzz.scheduled.adapters.relay.FrameState.Answered;
import buzz.scheduled.adapters.relay.FrameState.Origin;
import buzz.scheduled.adapters.relay.FrameState.Queued;
import buzz.scheduled.adapters.relay.FrameState.Resolving;
import buzz.scheduled.adapters.relay.FrameState.Unresolved;
import buzz.scheduled.adapters.relay.FrameState.Written;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayPublisher.Publication;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One publication from {@link buzz.scheduled.application.port.out.RelayPublisher#publish} (or a look-up) until its
 * answer, with its {@link FrameState}. Every move from one state to the next is a method here that switches over the
 * current state without a {@code default}: a new state does not compile until each move says what it means there.
 * State is guarded by the owner's lock; {@link #answer} may come without it and wins over any later move.
 */
final class Frame {
    private static final Logger LOG = LoggerFactory.getLogger(Frame.class);

    final Publication publication;
    /** The {@code ["EVENT", …]} text; empty for a look-up, whose event is never written. */
    final String text;
    /** Only ask the relay whether it has the event; the frame is never written. */
    final boolean lookUpOnly;
    private final Consumer<PublishResult> callback;
    // guarded by this
    private FrameState state;
    /** Whether the relay answered it {@code auth-required:} once already (it is resent after AUTH only once). */
    private boolean authRetried;
    /** Why and in which words the relay last refused this frame for now; null when it never did. */
    private Refusal refusal;

    private Frame(Publication publication, Consumer<PublishResult> callback, boolean lookUpOnly, FrameState state) {
        this.publication = publication;
        this.callback = callback;
        this.lookUpOnly = lookUpOnly;
        this.text = lookUpOnly ? "" : "[\"EVENT\"," + publication.eventJson() + "]";
        this.state = state;
    }

    /** An event frame to write. */
    static Frame toPublish(Publication publication, Consumer<PublishResult> callback) {
        return new Frame(publication, callback, false, new Queued(false));
    }

    /** A question whether the relay has the event; the event is never written. */
    static Frame toLookUp(Publication publication, Consumer<PublishResult> callback) {
        return new Frame(publication, callback, true, new Queued(false));
    }

    /** An event an earlier claim may have sent: asked about first, written only if the relay does not have it. */
    static Frame toResolveFirst(Publication publication, Consumer<PublishResult> callback) {
        return new Frame(publication, callback, false, new Unresolved(Origin.EARLIER_CLAIM));
    }

    /** The event's id in hex. */
    String eventId() {
        return publication.eventId().hex();
    }

    synchronized FrameState state() {
        return state;
    }

    /** The relay's last refusal for now, if any. */
    synchronized Refusal refusal() {
        return refusal;
    }

    synchronized boolean authRetried() {
        return authRetried;
    }

    /** Written to the socket now: its {@code OK} is awaited until {@code answerBy}. */
    synchronized void written(long now, long answerBy) {
        state = switch (state) {
            case Queued queued -> new Written(now, answerBy);
            case Answered answered -> answered;
            case Written written -> throw illegal("written");
            case Unresolved unresolved -> throw illegal("written");
            case Resolving resolving -> throw illegal("written");
        };
    }

    /** The relay refused it for now ({@code auth-required:}, {@code rate-limited:}): to be written again. */
    synchronized void refused(Refusal why) {
        state = switch (state) {
            case Written written -> new Queued(false);
            case Answered answered -> answered;
            case Queued queued -> throw illegal("refused");
            case Unresolved unresolved -> throw illegal("refused");
            case Resolving resolving -> throw illegal("refused");
        };
        refusal = why;
        if (why.reason() == Refusal.Reason.AUTH_REQUIRED) {
            authRetried = true;
        }
    }

    /** Asked about in the look-up {@code subscription}. */
    synchronized void asked(String subscription) {
        state = switch (state) {
            case Queued queued -> new Resolving(Origin.NO_ANSWER, subscription);
            case Written written -> new Resolving(Origin.NO_ANSWER, subscription);
            case Unresolved unresolved -> new Resolving(unresolved.origin(), subscription);
            case Answered answered -> answered;
            case Resolving resolving -> throw illegal("asked");
        };
    }

    /** The relay answered the look-up before AUTH: asked again once it has answered ours. */
    synchronized void askAgainAfterAuth() {
        state = switch (state) {
            case Resolving resolving -> lookUpOnly ? new Queued(true) : new Unresolved(resolving.origin());
            case Answered answered -> answered;
            case Queued queued -> throw illegal("asked again");
            case Written written -> throw illegal("asked again");
            case Unresolved unresolved -> throw illegal("asked again");
        };
    }

    /** The connection was lost before the relay answered its frame or its look-up. */
    synchronized void connectionLost() {
        state = switch (state) {
            case Written written -> new Unresolved(Origin.LOST_CONNECTION);
            case Resolving resolving -> new Unresolved(resolving.origin() == Origin.EARLIER_CLAIM
                    ? Origin.EARLIER_CLAIM : Origin.LOST_CONNECTION);
            case Answered answered -> answered;
            case Queued queued -> throw illegal("lost with the connection");
            case Unresolved unresolved -> throw illegal("lost with the connection");
        };
    }

    /**
     * The look-up found the event absent: whether it is written (again) now, which it is when its outcome became
     * unknown by a lost connection or an earlier claim and its deadline and claim still hold.
     */
    synchronized boolean resendIfAbsent(long now) {
        boolean resend = switch (state) {
            case Resolving resolving -> resolving.origin().resendIfAbsent() && !lookUpOnly
                    && now - publication.sendBy() < 0 && publication.held().getAsBoolean();
            case Answered answered -> false;
            case Queued queued -> throw illegal("resent");
            case Written written -> throw illegal("resent");
            case Unresolved unresolved -> throw illegal("resent");
        };
        if (resend) {
            state = new Queued(false);
        }
        return resend;
    }

    /** Whether this client wrote the frame (or asked about it) in its current try, for the answer at close. */
    synchronized boolean wasWritten() {
        return switch (state) {
            case Queued queued -> queued.askedBefore();
            case Written written -> true;
            case Unresolved unresolved -> unresolved.origin().written();
            case Resolving resolving -> resolving.origin().written();
            case Answered answered -> true;
        };
    }

    /** Answers once; later answers (a late OK after a timeout, say) are ignored. */
    void answer(PublishResult result) {
        synchronized (this) {
            if (state instanceof Answered) {
                return;
            }
            state = new Answered();
        }
        try {
            callback.accept(result);
        } catch (RuntimeException e) {
            LOG.warn("a publish callback failed: {}", e.toString());
        }
    }

    /** The answer to a frame whose deadline passed, or whose claim was lost, before it was (again) written. */
    PublishResult unsent(String deadline) {
        if (!publication.held().getAsBoolean()) {
            return new PublishResult.NotSent("lost: the claim was lost before the frame reached the socket");
        }
        Refusal last = refusal();
        return last == null ? new PublishResult.NotSent(deadline)
                : new PublishResult.Transient(last.words() + " (not written again before its send deadline)");
    }

    /** The answer to an unresolved frame whose deadline passed before a connection came that could ask about it. */
    PublishResult tooLateToAsk() {
        return new PublishResult.Transient(wasWritten()
                ? "dropped: the connection was lost before the relay answered, and no new connection came in time to"
                + " ask whether it has the event"
                : "unknown: no connection came in time to ask the relay whether it has the event an earlier claim may"
                + " have sent");
    }

    private IllegalStateException illegal(String move) {
        return new IllegalStateException("frame " + eventId() + " cannot be " + move + " when " + state);
    }

    /**
     * The relay refused a frame for now, to be written again: after AUTH ({@code auth-required:}) or at a slower
     * pace ({@code rate-limited:}).
     *
     * @param reason which of the two
     * @param words  the relay's message
     */
    record Refusal(Reason reason, String words) {
        enum Reason { AUTH_REQUIRED, RATE_LIMITED }
    }
}
