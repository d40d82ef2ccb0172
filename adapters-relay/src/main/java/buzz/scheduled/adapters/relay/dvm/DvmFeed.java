package buzz.scheduled.adapters.relay.dvm;

import buzz.scheduled.adapters.relay.AuthEventSigner;
import buzz.scheduled.adapters.relay.RelayConnection;
import buzz.scheduled.adapters.relay.RelayMessage;
import buzz.scheduled.adapters.relay.RelayResources;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.encryption.Nip04;
import buzz.scheduled.adapters.relay.encryption.Nip44;
import buzz.scheduled.adapters.relay.encryption.Nip44.Opened;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.in.JobRequestUseCase;
import buzz.scheduled.application.port.in.JobRequestUseCase.DeletionOutcome;
import buzz.scheduled.application.port.in.JobRequestUseCase.Input;
import buzz.scheduled.application.port.in.JobRequestUseCase.JobOutcome;
import buzz.scheduled.application.port.in.JobRequestUseCase.JobRequestCommand;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.application.port.out.OwnerWriteLimiter;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.nostr.StrictJson;
import java.net.http.HttpClient;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kind-5905 front door's relay side (docs/nostr.md): follows the sidecar's relay on a {@link RelayConnection} of
 * its own with one subscription, {@code buzz-dvm}: kind-5905 requests whose {@code p} tag is the sidecar's key, and
 * kind-5 deletions tagged {@code ["k", "5905"]} (NIP-09; NDK adds that tag), both {@code since} a minute before the
 * start of the process (a client whose clock is a little behind still reaches it) and, after a reconnect, since a
 * minute before the link was last heard (the catch-up: what was handled before is recognised by request id and not
 * handled again). Each event's id and BIP-340 signature is checked; a
 * request's job tags are read from its {@code tags}, or, with an {@code ["encrypted"]} tag, from its content decrypted
 * with NIP-44 v2 (or NIP-04, told apart by its {@code ?iv=}); then {@link JobRequestUseCase} admits it. On the first
 * link the sidecar's NIP-89 handler announcement (kind 31990, {@code ["k", "5905"]}) is published.
 *
 * <p>Bounds, since anyone can write to a relay: a request larger than {@code maxRequestBytes} (content plus tags) is
 * dropped unread; each requester (and each deleting author) passes a token bucket first, and what is over it is
 * dropped unanswered, so a flood cannot make the sidecar sign and publish one answer per request; at most
 * {@code queueCapacity} events wait for the single worker, more are dropped. Every drop is counted and logged at DEBUG.
 * NIP-42: a subscription the relay closes with {@code auth-required:} is opened again after AUTH with the sidecar's
 * key.
 */
public final class DvmFeed implements AutoCloseable {
    /** The subscription's id. */
    static final String SUBSCRIPTION = "buzz-dvm";
    /** NIP-90 kind of a scheduled-publish request. */
    public static final int REQUEST_KIND = 5905;
    /** NIP-09 deletion. */
    public static final int DELETION_KIND = 5;
    /** NIP-89 handler information. */
    public static final int HANDLER_KIND = 31990;
    /** The NIP-89 announcement's {@code d} tag. */
    public static final String HANDLER_ID = "buzz-scheduled-delivery";
    /**
     * How far back the subscription reaches before the start, and a reconnect's catch-up before the last moment the
     * link was heard: relays filter {@code since} on the client's {@code created_at}, which may lag behind.
     */
    static final Duration CATCH_UP_SLACK = Duration.ofSeconds(60);
    private static final Duration ANNOUNCE_TIMEOUT = Duration.ofSeconds(10);
    private static final int RECENT_IDS = 4096;
    private static final Logger LOG = LoggerFactory.getLogger(DvmFeed.class);

    private final RelaySettings relaySettings;
    private final SecretKey key;
    private final PublicKey self;
    private final EventSignatures signatures;
    private final JobRequestUseCase jobs;
    private final OwnerWriteLimiter requesters;
    private final RelayPublisher publisher;
    private final Optional<AuthEventSigner> authSigner;
    private final WallClock clock;
    private final int maxRequestBytes;
    private final HttpClient http;
    private final ScheduledExecutorService timer;
    private final ThreadPoolExecutor worker;
    private final RelayConnection relay;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong handled = new AtomicLong();
    /** Request and deletion ids seen lately, so the overlap of a catch-up with what came live costs no lookup. */
    private final Map<String, Boolean> recent = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > RECENT_IDS;
        }
    };

    private final Object lock = new Object();
    // guarded by lock
    private long since;
    private long lastHeard;
    private boolean announced;
    private boolean authWanted;
    private boolean authenticated;
    private boolean closed;

    /**
     * @param relaySettings   the sidecar's relay
     * @param key             the sidecar's key: requests are addressed to it, encrypted to it, and it signs the
     *                        announcement
     * @param signatures      checks each event's id and signature
     * @param jobs            admits requests and carries out deletions
     * @param requesters      the per-requester bound (a token bucket per pubkey)
     * @param publisher       publishes the NIP-89 announcement
     * @param authSigner      NIP-42 AUTH with the sidecar's key
     * @param clock           the start of the subscription, AUTH events, the announcement's time
     * @param maxRequestBytes the largest request read (content plus tags, in characters)
     * @param queueCapacity   the most events waiting for the worker
     */
    public DvmFeed(RelaySettings relaySettings, SecretKey key, EventSignatures signatures, JobRequestUseCase jobs,
                   OwnerWriteLimiter requesters, RelayPublisher publisher, Optional<AuthEventSigner> authSigner,
                   WallClock clock, int maxRequestBytes, int queueCapacity) {
        if (relaySettings == null || key == null || signatures == null || jobs == null || requesters == null
                || publisher == null || authSigner == null || clock == null || maxRequestBytes < 1
                || queueCapacity < 1) {
            throw new IllegalArgumentException("the DVM feed needs its relay, key, signatures, use case, bounds,"
                    + " publisher, AUTH option and clock");
        }
        this.relaySettings = relaySettings;
        this.key = key;
        this.self = key.publicKey();
        this.signatures = signatures;
        this.jobs = jobs;
        this.requesters = requesters;
        this.publisher = publisher;
        this.authSigner = authSigner;
        this.clock = clock;
        this.maxRequestBytes = maxRequestBytes;
        this.http = RelayResources.http11(relaySettings.connectTimeout());
        this.timer = Executors.newSingleThreadScheduledExecutor(RelayResources.daemonThreads("dvm-feed-timer"));
        this.worker = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(queueCapacity),
                RelayResources.daemonThreads("dvm-feed-worker"), (task, executor) -> drop("the request queue is full"));
        this.relay = new RelayConnection(relaySettings, http, timer, new Events());
    }

    /** Starts following the relay from now on (returns at once). */
    public void start() {
        long now = clock.now().getEpochSecond();
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("the DVM feed is closed");
            }
            since = now - CATCH_UP_SLACK.toSeconds();
            lastHeard = now;
        }
        timer.execute(relay::connect);
    }

    /** Requests and deletions dropped by a bound (size, rate, queue) so far. */
    public long dropped() {
        return dropped.get();
    }

    /** Requests handed to the use case so far. */
    public long handled() {
        return handled.get();
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
        }
        relay.close();
        worker.shutdownNow();
        timer.shutdownNow();
    }

    /** The subscription: requests to the sidecar and kind-5905 deletions, since {@code since}. */
    String subscription(long since) {
        return "[\"REQ\",\"" + SUBSCRIPTION + "\",{\"kinds\":[" + REQUEST_KIND + "],\"#p\":[\"" + self.hex()
                + "\"],\"since\":" + since + "},{\"kinds\":[" + DELETION_KIND + "],\"#k\":[\"" + REQUEST_KIND
                + "\"],\"since\":" + since + "}]";
    }

    private void subscribe(RelayConnection.Link link) {
        long from;
        synchronized (lock) {
            from = since;
        }
        link.send(subscription(from));
    }

    private void announce() {
        synchronized (lock) {
            if (announced) {
                return;
            }
            announced = true;
        }
        String about = StrictJson.write(Map.of("name", "Scheduled messages", "about",
                "Publishes your signed event at its created_at (NIP-90 kind 5905), checking access again when it is"
                        + " due; a kind-5 deletion of the request cancels it."));
        NostrEvent announcement = new Bip340Signer(key, new SecureRandom()).sign(clock.now().getEpochSecond(),
                HANDLER_KIND, List.of(List.of("d", HANDLER_ID), List.of("k", Integer.toString(REQUEST_KIND))),
                about);
        PublishResult result = publisher.publish(announcement, ANNOUNCE_TIMEOUT);
        if (result instanceof PublishResult.Published) {
            LOG.info("published the NIP-89 handler announcement {} (kind {} for kind {}) to {}", announcement.id(),
                    HANDLER_KIND, REQUEST_KIND, relaySettings.url());
        } else {
            synchronized (lock) {
                announced = false;
            }
            LOG.warn("the relay did not take the NIP-89 handler announcement: {}", result.kind());
        }
    }

    private void event(RelayMessage.Event message) {
        if (!message.subscription().equals(SUBSCRIPTION)
                || !(message.event() instanceof NostrEventJson.Decoded.Event decoded)) {
            return;
        }
        NostrEvent event = decoded.event();
        synchronized (lock) {
            lastHeard = Math.max(lastHeard, Math.min(event.createdAt(), clock.now().getEpochSecond()));
        }
        boolean request = event.kind() == REQUEST_KIND && event.tagValues("p").contains(self.hex());
        boolean deletion = event.kind() == DELETION_KIND;
        if (!request && !deletion) {
            return;
        }
        synchronized (recent) {
            if (recent.put(event.id().hex(), Boolean.TRUE) != null) {
                return;
            }
        }
        int size = event.content().length() + event.tags().stream().mapToInt(tag -> tag.stream()
                .mapToInt(String::length).sum()).sum();
        if (size > maxRequestBytes) {
            drop("event " + event.id() + " of " + event.pubkey() + " is " + size + " characters, over "
                    + maxRequestBytes + " (BUZZ_DVM_MAX_REQUEST_BYTES)");
            return;
        }
        if (requesters.tryWrite(event.pubkey()).isPresent()) {
            drop("requester " + event.pubkey() + " is over BUZZ_DVM_REQUESTS_PER_MINUTE");
            return;
        }
        try {
            worker.execute(() -> {
                if (signatures.verify(event) instanceof EventSignatures.Verdict.Invalid invalid) {
                    drop("event " + event.id() + " is not validly signed: " + invalid.reason());
                    return;
                }
                if (request) {
                    request(event);
                } else {
                    deletion(event, 0);
                }
            });
        } catch (RejectedExecutionException e) {
            // closing
        }
    }

    private void request(NostrEvent event) {
        boolean encrypted = event.tags().stream().anyMatch(tag -> tag.get(0).equals("encrypted"));
        Input input = encrypted ? decrypted(event) : new Input.Tags(event.tags());
        JobOutcome outcome = jobs.handle(new JobRequestCommand(event.id(), event.pubkey(), encrypted, input));
        handled.incrementAndGet();
        switch (outcome) {
            case JobOutcome.Admitted admitted -> LOG.info("kind-{} request {} from {}: {} message {}", REQUEST_KIND,
                    event.id(), event.pubkey(), admitted.replayed() ? "already scheduled as" : "scheduled as",
                    admitted.message());
            case JobOutcome.Refused refused -> LOG.info("kind-{} request {} from {} refused: {}: {}", REQUEST_KIND,
                    event.id(), event.pubkey(), refused.code(), refused.message());
            case JobOutcome.AlreadyHandled again -> LOG.debug("kind-{} request {} was handled before", REQUEST_KIND,
                    event.id());
        }
    }

    /** The job tags of an encrypted request: its content decrypted (NIP-44 v2, or NIP-04), a JSON array of tags. */
    private Input decrypted(NostrEvent event) {
        Opened opened;
        try {
            opened = Nip04.looksLikeNip04(event.content())
                    ? Nip04.decrypt(event.content(), key, event.pubkey())
                    : Nip44.decrypt(event.content(), Nip44.conversationKey(key, event.pubkey()));
        } catch (IllegalArgumentException e) {
            return new Input.Unreadable("the requester's key cannot be used for decryption");
        }
        return switch (opened) {
            case Opened.Unreadable unreadable -> new Input.Unreadable(unreadable.reason());
            case Opened.Plaintext plaintext -> tags(plaintext.text());
        };
    }

    private static Input tags(String json) {
        if (!(StrictJson.parse(json) instanceof StrictJson.Parsed.Value value)
                || !(value.value() instanceof List<?> list)) {
            return new Input.Unreadable("the decrypted content is not a JSON array of tags");
        }
        List<List<String>> tags = new ArrayList<>(list.size());
        for (Object item : list) {
            if (!(item instanceof List<?> tag) || tag.isEmpty()
                    || !tag.stream().allMatch(String.class::isInstance)) {
                return new Input.Unreadable("the decrypted content is not a JSON array of tags (arrays of strings)");
            }
            tags.add(tag.stream().map(String.class::cast).toList());
        }
        return new Input.Tags(tags);
    }

    private void deletion(NostrEvent event, int attempt) {
        List<EventId> deleted = new ArrayList<>();
        for (String value : event.tagValues("e")) {
            try {
                deleted.add(new EventId(value));
            } catch (IllegalArgumentException e) {
                // not an event id: nothing of ours
            }
        }
        if (deleted.isEmpty()) {
            return;
        }
        DeletionOutcome outcome = jobs.delete(event.pubkey(), deleted);
        if (outcome.cancelled() + outcome.refused() + outcome.early() > 0) {
            LOG.info("deletion {} by {}: {} cancelled, {} could no longer be cancelled, {} deleted before they came",
                    event.id(), event.pubkey(), outcome.cancelled(), outcome.refused(), outcome.early());
        }
        outcome.retryAfter().ifPresent(wait -> {
            if (attempt >= 20) {
                LOG.warn("deletion {} by {}: a cancel still could not be made after {} attempts", event.id(),
                        event.pubkey(), attempt + 1);
                return;
            }
            try {
                timer.schedule(() -> worker.execute(() -> deletion(event, attempt + 1)), wait.toMillis(),
                        TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // closing
            }
        });
    }

    private void drop(String why) {
        dropped.incrementAndGet();
        LOG.debug("DVM feed dropped an event: {}", why);
    }

    /** The connection layer's news. */
    private final class Events implements RelayConnection.Listener {
        @Override
        public Optional<String> beforeConnect() {
            synchronized (lock) {
                return closed ? Optional.of("the DVM feed is closed") : Optional.empty();
            }
        }

        @Override
        public void opened(RelayConnection.Link link) {
            synchronized (lock) {
                authenticated = false;
                authWanted = false;
            }
            subscribe(link);
            timer.execute(DvmFeed.this::announce);
        }

        @Override
        public void received(RelayConnection.Link link, RelayMessage message) {
            switch (message) {
                case RelayMessage.Event event -> event(event);
                case RelayMessage.EndOfStoredEvents eose -> {
                    if (eose.subscription().equals(SUBSCRIPTION)) {
                        link.healthy();
                        synchronized (lock) {
                            lastHeard = Math.max(lastHeard, clock.now().getEpochSecond());
                        }
                    }
                }
                case RelayMessage.Closed closedByRelay -> {
                    if (closedByRelay.subscription().equals(SUBSCRIPTION)) {
                        closedByRelay(link, closedByRelay.message());
                    }
                }
                case RelayMessage.Notice notice -> LOG.debug("relay notice on the DVM feed: {}", notice.message());
                case RelayMessage.Ok ok -> {
                    // the feed sends no events
                }
                case RelayMessage.Auth auth -> {
                    // challenges come to challenged()
                }
                case RelayMessage.Other other -> {
                    // nothing of the feed's
                }
            }
        }

        private void closedByRelay(RelayConnection.Link link, String why) {
            boolean authenticate;
            synchronized (lock) {
                authenticate = why.startsWith("auth-required:") && authSigner.isPresent() && !authenticated;
                authWanted = authenticate;
            }
            if (authenticate) {
                authenticate(link);
            } else {
                link.abort("the relay closed the DVM subscription: " + (why.isEmpty() ? "(no reason)" : why));
            }
        }

        private void authenticate(RelayConnection.Link link) {
            Optional<String> auth = link.authEvent(authSigner.orElseThrow(), clock);
            if (auth.isPresent()) {
                synchronized (lock) {
                    authWanted = false;
                }
                link.send(auth.get());
            }
        }

        @Override
        public void challenged(RelayConnection.Link link, String challenge) {
            boolean wanted;
            synchronized (lock) {
                wanted = authWanted;
            }
            if (wanted) {
                authenticate(link);
            }
        }

        @Override
        public void authAnswered(RelayConnection.Link link, boolean accepted, String message) {
            if (accepted) {
                synchronized (lock) {
                    authenticated = true;
                }
                subscribe(link);
            } else {
                link.abort("the relay refused the sidecar's NIP-42 AUTH: " + message);
            }
        }

        @Override
        public void ended(RelayConnection.Link link, int statusCode, String why, Duration retryIn) {
            synchronized (lock) {
                since = Math.max(since - CATCH_UP_SLACK.toSeconds(), lastHeard - CATCH_UP_SLACK.toSeconds());
            }
            LOG.info("DVM feed from {} lost ({}); reconnecting in {} ms, catching up from then", relaySettings.url(),
                    why, retryIn.toMillis());
        }

        @Override
        public void unreachable(String why, int failures, Duration retryIn) {
            if (failures == 1 || failures % 10 == 0) {
                LOG.warn("DVM feed: relay {} unreachable ({} attempts): {}", relaySettings.url(), failures, why);
            }
        }
    }
}
