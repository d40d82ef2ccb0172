package buzz.scheduled.adapters.relay.nip29;

import buzz.scheduled.adapters.relay.AuthEventSigner;
import buzz.scheduled.adapters.relay.nip29.GroupDirectory.Moderation;
import buzz.scheduled.application.port.in.DeleteChannelUseCase;
import buzz.scheduled.application.port.in.RemoveMemberUseCase;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.nostr.StrictJson;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the relay's NIP-29 group state on its own WebSocket connection (next to the publishing client's):
 * {@code ["REQ", "buzz-nip29", {"kinds":[39000,39001,39002],"authors":[<relay>]}, {"kinds":[9001,9008]}]}.
 *
 * <p>Every event's id and BIP-340 signature are checked; state events count only when the relay signed them
 * (its pubkey from configuration or its NIP-11 document), moderation events only when the relay or an admin of
 * the group did. Moderation events that arrive with the stored backlog are held until {@code EOSE}, when the
 * admin and member lists are complete, then carried out oldest first: 9008 delete-group deletes the channel
 * ({@code channel_deleted}, payloads purged, tombstone), 9001 remove-user fails the removed members' pending
 * messages there ({@code member_removed}). A failed store call is retried with backoff; each moderation event
 * is carried out once per process.
 *
 * <p>The {@link GroupDirectory} is "in sync" from {@code EOSE} until the connection is lost (closed, failed,
 * no pong to a ping, or the relay closed the subscription); meanwhile the {@code nip29} policy answers
 * "unavailable". Lost connections are re-made with the relay settings' backoff. NIP-42: when the relay closes
 * the subscription with {@code auth-required:}, the feed authenticates with the sidecar's key (if it has a
 * signer) and subscribes again.
 */
public final class GroupFeed implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupFeed.class);
    /** The subscription id. */
    static final String SUBSCRIPTION = "buzz-nip29";
    private static final Duration ACTION_RETRY_CAP = Duration.ofSeconds(30);

    private final Nip29Settings settings;
    private final GroupDirectory directory = new GroupDirectory();
    private final EventSignatures signatures;
    private final DeleteChannelUseCase deletion;
    private final RemoveMemberUseCase removal;
    private final Optional<AuthEventSigner> authSigner;
    private final WallClock clock;
    private final HttpClient http;
    private final ScheduledExecutorService timer;
    private final ExecutorService actions;
    private final Set<String> carriedOut = new HashSet<>();

    private final Object lock = new Object();
    // guarded by lock
    private Connection current;
    private int failedAttempts;
    private boolean closed;
    private boolean started;

    /**
     * @param settings   relay URL, backoff, relay pubkey (or NIP-11), ping interval
     * @param signatures checks each event's id and BIP-340 signature
     * @param deletion   carries out 9008 delete-group
     * @param removal    carries out 9001 remove-user
     * @param authSigner signs NIP-42 AUTH with the sidecar's key, if the relay wants it for reading
     * @param clock      the AUTH event's {@code created_at}
     */
    public GroupFeed(Nip29Settings settings, EventSignatures signatures, DeleteChannelUseCase deletion,
                     RemoveMemberUseCase removal, Optional<AuthEventSigner> authSigner, WallClock clock) {
        if (settings == null || signatures == null || deletion == null || removal == null || authSigner == null
                || clock == null) {
            throw new IllegalArgumentException("the group feed needs settings, signatures, deletion, removal, "
                    + "an AUTH signer option and a clock");
        }
        this.settings = settings;
        this.signatures = signatures;
        this.deletion = deletion;
        this.removal = removal;
        this.authSigner = authSigner;
        this.clock = clock;
        // HTTP/1.1: an HTTP/2 upgrade offer on the NIP-11 request would look like a failed WebSocket upgrade.
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(settings.relay().connectTimeout()).build();
        this.timer = Executors.newSingleThreadScheduledExecutor(daemon("nip29-feed-timer"));
        this.actions = Executors.newSingleThreadExecutor(daemon("nip29-moderation"));
        settings.relayPubkey().ifPresent(directory::relayPubkey);
    }

    /** Starts following the relay (returns at once; the policy is "unavailable" until the first sync). */
    public void start() {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("the group feed for " + settings.relay().url() + " is closed");
            }
            if (started) {
                return;
            }
            started = true;
        }
        timer.execute(this::connect);
    }

    /** Whether the group state is in sync with the relay right now. */
    public boolean inSync() {
        return directory.inSync();
    }

    GroupDirectory directory() {
        return directory;
    }

    /** Stops following the relay; pending moderation retries are abandoned (the next start re-reads them). */
    @Override
    public void close() {
        Connection connection;
        synchronized (lock) {
            closed = true;
            connection = current;
            current = null;
        }
        if (connection != null) {
            connection.abort("the feed is closing");
        }
        directory.unsynced("the group feed is closed");
        timer.shutdownNow();
        actions.shutdownNow();
    }

    // -----------------------------------------------------------------------------------------------------------

    private void connect() {
        synchronized (lock) {
            if (closed) {
                return;
            }
        }
        PublicKey relay;
        if (settings.relayPubkey().isPresent()) {
            relay = settings.relayPubkey().get();
        } else {
            switch (RelayInformation.pubkey(http, settings.relay().url(), settings.relay().connectTimeout())) {
                case RelayInformation.Answer.Pubkey found -> relay = found.pubkey();
                case RelayInformation.Answer.Missing missing -> {
                    directory.unsynced(missing.why());
                    reconnectLater(missing.why());
                    return;
                }
            }
        }
        directory.relayPubkey(relay);
        Connection connection = new Connection(relay);
        synchronized (lock) {
            if (closed) {
                return;
            }
            current = connection;
        }
        http.newWebSocketBuilder()
                .connectTimeout(settings.relay().connectTimeout())
                .buildAsync(settings.relay().url(), connection)
                .whenComplete((socket, error) -> {
                    if (error != null) {
                        connection.lost("cannot connect to " + settings.relay().url() + ": " + rootMessage(error));
                    } else {
                        connection.attach(socket);
                    }
                });
    }

    private void reconnectLater(String why) {
        Duration delay;
        synchronized (lock) {
            if (closed) {
                return;
            }
            delay = settings.relay().reconnectDelay(failedAttempts, ThreadLocalRandom.current().nextDouble());
            failedAttempts++;
        }
        LOG.warn("NIP-29 group feed from {} is down ({}); reconnecting in {} ms", settings.relay().url(), why,
                delay.toMillis());
        try {
            timer.schedule(this::connect, delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closed meanwhile
        }
    }

    private void carryOut(Moderation moderation, String eventId, int attempt) {
        try {
            switch (moderation) {
                case Moderation.GroupDeleted deleted -> {
                    var summary = deletion.deleteChannel(deleted.channel());
                    LOG.info("group {} deleted on the relay (event {}): {} pending failed, {} purged, {} in flight",
                            deleted.channel(), eventId, summary.failed(), summary.purged(), summary.inFlight());
                }
                case Moderation.MembersRemoved removed -> {
                    for (PublicKey member : removed.members()) {
                        var summary = removal.removeMember(removed.channel(), member);
                        LOG.info("{} removed from group {} on the relay (event {}): {} pending failed", member,
                                removed.channel(), eventId, summary.failed());
                    }
                }
            }
        } catch (RuntimeException e) {
            long millis = Math.min(ACTION_RETRY_CAP.toMillis(), 250L << Math.min(attempt, 7));
            LOG.warn("carrying out relay event {} failed (attempt {}), retrying in {} ms: {}", eventId, attempt + 1,
                    millis, e.toString());
            try {
                timer.schedule(() -> actions.execute(() -> carryOut(moderation, eventId, attempt + 1)), millis,
                        TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException closed) {
                // the feed is closing; the next start re-reads the event
            }
        }
    }

    private void moderate(NostrEvent event, boolean live) {
        synchronized (carriedOut) {
            if (!carriedOut.add(event.id().hex())) {
                return;
            }
        }
        directory.acceptModeration(event, live).ifPresent(moderation -> {
            try {
                actions.execute(() -> carryOut(moderation, event.id().hex(), 0));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // the feed is closing
            }
        });
    }

    private static String rootMessage(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.toString();
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    /** One connection: its socket, the backlog up to EOSE, NIP-42 state and keepalive. */
    private final class Connection implements WebSocket.Listener {
        private final PublicKey relay;
        private final StringBuilder partial = new StringBuilder();
        private final List<NostrEvent> backlog = new ArrayList<>();
        private final AtomicBoolean ended = new AtomicBoolean();
        private WebSocket socket;
        private boolean caughtUp;
        private String challenge;
        private boolean authWanted;
        private String authEventId;
        private long pingSentNanos;
        private ScheduledFuture<?> keepalive;

        Connection(PublicKey relay) {
            this.relay = relay;
        }

        synchronized void attach(WebSocket webSocket) {
            if (socket == null) {
                socket = webSocket;
            }
        }

        @Override
        public void onOpen(WebSocket webSocket) {
            attach(webSocket);
            subscribe();
            long interval = settings.pingInterval().toNanos();
            try {
                keepalive = timer.scheduleAtFixedRate(this::ping, interval, interval, TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                abort("the feed is closing");
                return;
            }
            webSocket.request(1);
        }

        private void subscribe() {
            String filters = "{\"kinds\":[39000,39001,39002],\"authors\":[\"" + relay.hex() + "\"]},"
                    + "{\"kinds\":[9001,9008]}";
            send("[\"REQ\",\"" + SUBSCRIPTION + "\"," + filters + "]");
        }

        private synchronized void send(String text) {
            if (socket != null && !ended.get()) {
                socket.sendText(text, true).whenComplete((ignored, error) -> {
                    if (error != null) {
                        lost("sending to the relay failed: " + rootMessage(error));
                    }
                });
            }
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                String text = partial.toString();
                partial.setLength(0);
                try {
                    receive(text);
                } catch (RuntimeException e) {
                    LOG.warn("NIP-29 group feed could not handle a relay message: {}", e.toString());
                }
            }
            webSocket.request(1);
            return null;
        }

        private void receive(String text) {
            if (!(StrictJson.parse(text) instanceof StrictJson.Parsed.Value value)
                    || !(value.value() instanceof List<?> message) || message.isEmpty()
                    || !(message.get(0) instanceof String type)) {
                LOG.debug("ignoring a relay message that is not a JSON array with a type");
                return;
            }
            switch (type) {
                case "EVENT" -> {
                    if (message.size() == 3 && SUBSCRIPTION.equals(message.get(1))) {
                        event(message.get(2));
                    }
                }
                case "EOSE" -> {
                    if (message.size() >= 2 && SUBSCRIPTION.equals(message.get(1))) {
                        caughtUp();
                    }
                }
                case "CLOSED" -> {
                    if (message.size() >= 2 && SUBSCRIPTION.equals(message.get(1))) {
                        String why = message.size() > 2 && message.get(2) instanceof String s ? s : "";
                        closedByRelay(why);
                    }
                }
                case "AUTH" -> {
                    if (message.size() >= 2 && message.get(1) instanceof String value1) {
                        challenged(value1);
                    }
                }
                case "OK" -> {
                    if (message.size() >= 3 && message.get(1) instanceof String id && id.equals(authEventId)
                            && message.get(2) instanceof Boolean accepted) {
                        authAnswered(accepted, message.size() > 3 && message.get(3) instanceof String s ? s : "");
                    }
                }
                case "NOTICE" -> LOG.info("relay notice on the NIP-29 feed: {}", message.size() > 1 ? message.get(1) : "");
                default -> {
                    // other message types do not concern the feed
                }
            }
        }

        private void event(Object json) {
            if (!(NostrEventJson.fromJson(json) instanceof NostrEventJson.Decoded.Event decoded)) {
                LOG.warn("ignoring a malformed event on the NIP-29 feed");
                return;
            }
            NostrEvent event = decoded.event();
            if (signatures.verify(event) instanceof EventSignatures.Verdict.Invalid invalid) {
                LOG.warn("ignoring event {} on the NIP-29 feed: {}", event.id(), invalid.reason());
                return;
            }
            switch (event.kind()) {
                case GroupDirectory.METADATA, GroupDirectory.ADMINS, GroupDirectory.MEMBERS -> {
                    if (!directory.acceptState(event) && !event.pubkey().equals(relay)) {
                        LOG.warn("ignoring group state event {} not signed by the relay's key {}", event.id(), relay);
                    }
                }
                case GroupDirectory.REMOVE_USER, GroupDirectory.DELETE_GROUP -> {
                    boolean live;
                    synchronized (this) {
                        live = caughtUp;
                        if (!live) {
                            backlog.add(event);
                        }
                    }
                    if (live) {
                        moderate(event, true);
                    }
                }
                default -> {
                    // not asked for
                }
            }
        }

        private void caughtUp() {
            List<NostrEvent> held;
            synchronized (this) {
                if (caughtUp) {
                    return;
                }
                caughtUp = true;
                held = new ArrayList<>(backlog);
                backlog.clear();
            }
            held.sort(Comparator.comparingLong(NostrEvent::createdAt).thenComparing(e -> e.id().hex()));
            held.forEach(event -> moderate(event, false));
            synchronized (lock) {
                if (current != this) {
                    return;
                }
                failedAttempts = 0;
            }
            directory.synced();
            LOG.info("NIP-29 group feed from {} is in sync", settings.relay().url());
        }

        private void closedByRelay(String why) {
            if (why.startsWith("auth-required:") && authSigner.isPresent()) {
                String pendingChallenge;
                synchronized (this) {
                    authWanted = true;
                    pendingChallenge = challenge;
                }
                if (pendingChallenge != null) {
                    authenticate(pendingChallenge);
                }
                return;
            }
            lost("the relay closed the group subscription: " + (why.isEmpty() ? "(no reason)" : why));
        }

        private void challenged(String value) {
            boolean wanted;
            synchronized (this) {
                challenge = value;
                wanted = authWanted;
            }
            if (wanted) {
                authenticate(value);
            }
        }

        private void authenticate(String value) {
            NostrEvent auth = authSigner.orElseThrow().signAuth(settings.relay().url().toString(), value,
                    clock.now().getEpochSecond());
            synchronized (this) {
                authWanted = false;
                authEventId = auth.id().hex();
            }
            send("[\"AUTH\"," + NostrEventJson.write(auth) + "]");
        }

        private void authAnswered(boolean accepted, String message) {
            if (accepted) {
                synchronized (this) {
                    caughtUp = false;
                    backlog.clear();
                }
                subscribe();
            } else {
                lost("the relay refused the sidecar's NIP-42 AUTH: " + message);
            }
        }

        private void ping() {
            long now = System.nanoTime();
            long sent;
            synchronized (this) {
                sent = pingSentNanos;
            }
            if (sent != 0 && now - sent > settings.relay().connectTimeout().toNanos()) {
                abort("no pong from the relay within " + settings.relay().connectTimeout().toMillis() + " ms");
                return;
            }
            WebSocket target;
            synchronized (this) {
                if (sent == 0) {
                    pingSentNanos = now;
                }
                target = socket;
            }
            if (target != null && sent == 0) {
                target.sendPing(ByteBuffer.allocate(0)).whenComplete((ignored, error) -> {
                    if (error != null) {
                        lost("ping failed: " + rootMessage(error));
                    }
                });
            }
        }

        @Override
        public CompletionStage<?> onPong(WebSocket webSocket, ByteBuffer message) {
            synchronized (this) {
                pingSentNanos = 0;
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            lost("the relay closed the connection (" + statusCode + (reason.isEmpty() ? "" : " " + reason) + ")");
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            lost("the connection to the relay failed: " + rootMessage(error));
        }

        void abort(String why) {
            WebSocket target;
            synchronized (this) {
                target = socket;
            }
            if (target != null) {
                target.abort();
            }
            lost(why);
        }

        /** Ends this connection once: out of sync, and a new connection later unless the feed is closing. */
        void lost(String why) {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            if (keepalive != null) {
                keepalive.cancel(false);
            }
            WebSocket target;
            synchronized (this) {
                target = socket;
            }
            if (target != null && !target.isInputClosed()) {
                target.abort();
            }
            boolean mine;
            synchronized (lock) {
                mine = current == this;
                if (mine) {
                    current = null;
                }
            }
            if (mine) {
                directory.unsynced("the relay's group state is not available: " + why);
                reconnectLater(why);
            }
        }
    }
}
