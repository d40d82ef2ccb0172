package buzz.scheduled.adapters.relay;

import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
    /**
     * Most look-ups open at once on a connection before a {@link #lookUp} waits its turn: relays limit open
     * subscriptions per connection (strfry and khatru do), and one refused would leave its events unknown.
     */
    static final int MAX_OPEN_RESOLUTIONS = PublishLoop.MAX_OPEN_LOOK_UPS;

    private final RelaySettings settings;
    private final HttpClient http;
    private final ScheduledExecutorService timer;
    private final RelayConnection relay;
    /** What is written when, and what the relay's answers mean (set once, before any connection is made). */
    private final PublishLoop loop;

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
        this.http = HttpClient.newBuilder().connectTimeout(settings.connectTimeout()).build();
        this.timer = Executors.newSingleThreadScheduledExecutor(RelayResources.daemonThreads("relay-client-timer"));
        this.relay = new RelayConnection(settings, http, timer, new Events());
        this.loop = new PublishLoop(settings, authSigner, clock, LOG, relay);
        timer.scheduleWithFixedDelay(loop::tick, TICK_NANOS, TICK_NANOS, TimeUnit.NANOSECONDS);
    }

    /**
     * Starts connecting if no connection exists or is being made; returns at once.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    public void connect() {
        if (!loop.connect()) {
            throw new IllegalStateException("relay client for " + settings.url() + " is closed");
        }
    }

    /** Whether a connection to the relay is open (and not waiting for the relay to answer our AUTH) right now. */
    public boolean isConnected() {
        return loop.isConnected();
    }

    /** What this client has seen since it was made (for metrics). */
    public Counts counts() {
        RelayCounters c = loop.counters;
        return new Counts(c.connections.get(), c.drops.get(), c.timeouts.get(), c.found.get(), c.resent.get(),
                c.notSent.get(), c.tooLarge.get(), c.authRefusals.get(), c.rateLimited.get(),
                c.askedAgainAfterAuth.get(), c.eventsSent.get());
    }

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
        loop.enqueue(Frame.toPublish(publication, answer));
    }

    @Override
    public void lookUp(Publication publication, Consumer<PublishResult> answer) {
        if (publication == null || answer == null) {
            throw new IllegalArgumentException("a publication and an answer callback are required");
        }
        loop.enqueue(Frame.toLookUp(publication, answer));
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
        Frame frame = Frame.toResolveFirst(publication, answer);
        if (!loop.resolveFirst(frame)) {
            frame.answer(new PublishResult.NotSent("closed: the relay client for " + settings.url() + " is closed"));
        }
    }

    @Override
    public int withdrawUnsent() {
        List<Frame> withdrawn = loop.withdraw();
        for (Frame frame : withdrawn) {
            Frame.Refusal refusal = frame.refusal();
            frame.answer(new PublishResult.NotSent(refusal == null
                    ? "withdrawn: the frame was taken back before it was written"
                    : "withdrawn: the frame was taken back before it was written again (" + refusal.words() + ")"));
        }
        return withdrawn.size();
    }

    /** Closes the connection and stops reconnecting; everything waiting is answered. */
    @Override
    public void close() {
        List<Frame> waiting = loop.close();
        if (waiting == null) {
            return;
        }
        timer.shutdownNow();
        relay.close();
        for (Frame frame : waiting) {
            frame.answer(frame.wasWritten()
                    ? new PublishResult.Transient("dropped: the relay client was closed before the relay answered")
                    : new PublishResult.NotSent("closed: the relay client was closed before the frame was written"));
        }
        http.shutdownNow();
    }

    /** The connection layer's news, for the loop: a link opened, a message, AUTH, a link ended, an attempt failed. */
    private final class Events implements RelayConnection.Listener {
        @Override
        public void opened(RelayConnection.Link link) {
            loop.opened(link);
        }

        @Override
        public void received(RelayConnection.Link link, RelayMessage message) {
            loop.received(link, message);
        }

        @Override
        public void challenged(RelayConnection.Link link, String challenge) {
            loop.challenged(link);
        }

        @Override
        public void authAnswered(RelayConnection.Link link, boolean accepted, String message) {
            loop.authAnswered(link, accepted, message);
        }

        @Override
        public void ended(RelayConnection.Link link, int statusCode, String why, Duration retryIn) {
            loop.ended(link, statusCode, why);
        }

        @Override
        public void unreachable(String why, int failures, Duration retryIn) {
            loop.unreachable(why, failures);
        }
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
}
