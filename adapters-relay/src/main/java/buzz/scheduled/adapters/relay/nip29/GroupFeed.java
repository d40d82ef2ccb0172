package buzz.scheduled.adapters.relay.nip29;

import buzz.scheduled.adapters.relay.AuthEventSigner;
import buzz.scheduled.adapters.relay.RelayConnection;
import buzz.scheduled.adapters.relay.RelayInformation;
import buzz.scheduled.adapters.relay.RelayMessage;
import buzz.scheduled.adapters.relay.RelayResources;
import buzz.scheduled.adapters.relay.nip29.GroupDirectory.Moderation;
import buzz.scheduled.application.port.in.DeleteChannelUseCase;
import buzz.scheduled.application.port.in.RemoveMemberUseCase;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Follows the relay's NIP-29 group state on its own {@link RelayConnection} (next to the publishing client's): the
 * connection layer makes and re-makes the WebSocket, answers pings and parses the relay's messages; this class reads
 * the group state from them.
 *
 * <p><b>Whose key.</b> Group state (kinds 39000 metadata, 39001 admins, 39002 members) counts only when signed by
 * the relay's own key: {@code BUZZ_RELAY_PUBKEY} when configured, else the {@code self} of the relay's NIP-11
 * document, read on every connect. The document's {@code pubkey} is the operator's contact key, which NIP-29 relays
 * do not sign group state with; without {@code self} and without a configured key the feed says so and stays
 * unavailable. Moderation events (9008 delete-group, 9001 remove-user) count when the relay or an admin of the
 * group signed them. Every event's id and BIP-340 signature is checked.
 *
 * <p><b>The backlog, paged.</b> Relays cap the results of one filter (strfry at 500) without saying so in
 * {@code EOSE}, so the stored backlog is read page by page: {@code {..., "limit": L}}, then {@code "until"} the
 * oldest {@code created_at} of the previous page, until a page comes back with fewer than {@code L} events. {@code L}
 * is the relay's NIP-11 {@code limitation.max_limit} when it states one (at most 5000), else the configured page
 * size (default 100). Both filters are paged: {@code {"kinds":[39000,39001,39002],"authors":[<relay>]}} and
 * {@code {"kinds":[9001,9008]}}. Before the first page, a live subscription {@code buzz-nip29} with the same filters
 * (and {@code "limit":1}) is opened, so nothing stored while the pages are read is missed. A full page whose events
 * are all already known (at least {@code L} events share one second) cannot be paged past: the backlog would be
 * truncated, so the connection is given up and tried again later, never reported in sync. A relay may refuse a page
 * whose {@code limit} is over its own without stating {@code max_limit}: a page closed by the relay
 * ({@code CLOSED}, other than {@code auth-required:}), or that brings nothing within
 * {@value FeedConnection#NOTICE_GRACE_MILLIS} ms of a {@code NOTICE} or within the connect timeout, is asked again
 * at half the size ({@link PageSize}: WARN the first time, kept for later connections); a page of one event refused
 * gives the connection up.
 *
 * <p><b>In sync.</b> Moderation events from the backlog are held until every page is read (the admin and member
 * lists are then complete) and carried out oldest first: 9008 deletes the channel ({@code channel_deleted},
 * payloads purged, tombstone), 9001 fails the removed members' pending messages there ({@code member_removed}). A
 * failed store call is retried with backoff; each moderation event is carried out once per process. The
 * {@link GroupDirectory} is then "in sync" — but only on a positive signal that the key is right: at least one
 * group state event signed by it, or the relay's NIP-11 {@code self} naming it (a relay that says so and has no
 * groups yet). A configured key that the relay does not confirm and that signed nothing is most likely the wrong
 * key: the feed logs a WARN (naming the keys that did sign group state on the relay, if any) and stays
 * unavailable until a state event signed by that key arrives live. The directory is out of sync again from the
 * moment the connection is lost (closed, failed, no pong by the next ping, or the relay closed a subscription);
 * meanwhile the {@code nip29} policy answers "unavailable". Lost connections are re-made with the relay settings'
 * backoff, which starts afresh once the feed is in sync. NIP-42: when the relay closes a subscription with
 * {@code auth-required:}, the feed authenticates with the sidecar's key (if it has a signer) and reads the backlog
 * again.
 *
 * <p><b>The parts.</b> This class owns the connection layer, the timer and the moderation thread; the state of the
 * sync on each link is a {@link FeedConnection} ({@link SyncPhase}, {@link AuthState}), which returns what to do
 * as {@link FeedStep}s that this class carries out, and never calls back.
 */
public final class GroupFeed implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupFeed.class);
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
    private final RelayConnection relay;
    private final Set<String> carriedOut = new HashSet<>();
    /** The backlog's page size, lowered when the relay refuses pages; kept across connections. */
    private final PageSize pageSizes = new PageSize();

    private final Object lock = new Object();
    /** Why the feed last went down, until it is in sync again: the same reason again is logged at DEBUG only. */
    private volatile String lastDown;
    // guarded by lock
    private Attached current;
    /** What the NIP-11 document said before the attempt under way, for the link it opens. */
    private FeedConnection next;
    /** The check that the backlog page asked for last brings something (one page is asked for at a time). */
    private ScheduledFuture<?> pageWatch;
    /** Why the last attempt was given up before connecting (already the directory's reason), or null. */
    private String refusal;
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
        this.http = RelayResources.http11(settings.relay().connectTimeout());
        this.timer = Executors.newSingleThreadScheduledExecutor(RelayResources.daemonThreads("nip29-feed-timer"));
        this.actions = Executors.newSingleThreadExecutor(RelayResources.daemonThreads("nip29-moderation"));
        this.relay = new RelayConnection(settings.relay().withPingInterval(settings.pingInterval()), http, timer,
                new Events());
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
        timer.execute(relay::connect);
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
        synchronized (lock) {
            closed = true;
            current = null;
        }
        relay.close();
        directory.unsynced("the group feed is closed");
        timer.shutdownNow();
        actions.shutdownNow();
    }

    // -----------------------------------------------------------------------------------------------------------

    /**
     * Reads the relay's NIP-11 document before each connection: the key to follow and the page size. A reason not
     * to connect (no key to follow) when there is none; the directory then says so.
     */
    private Optional<String> prepare() {
        RelayInformation.Answer answer = RelayInformation.fetch(http, settings.relay().url(),
                settings.relay().connectTimeout());
        Optional<RelayInformation> information = answer instanceof RelayInformation.Answer.Read read
                ? Optional.of(read.information()) : Optional.empty();
        Optional<SigningKey> key = signingKey(answer, information);
        if (key.isEmpty()) {
            synchronized (lock) {
                return Optional.of(refusal);
            }
        }
        int pageSize = pageSizes.forConnection(information.flatMap(i -> i.limitation().maxLimit().isPresent()
                        ? Optional.of(i.limitation().maxLimit().getAsInt()) : Optional.empty())
                .map(max -> Math.max(1, Math.min(max, Nip29Settings.MAX_PAGE_SIZE)))
                .orElse(settings.pageSize()));
        directory.relayPubkey(key.get().pubkey());
        synchronized (lock) {
            next = new FeedConnection(key.get(), pageSize, pageSizes, directory, signatures, authSigner.isPresent(),
                    settings.relay().connectTimeout());
        }
        return Optional.empty();
    }

    /**
     * The key group state must be signed with, and whether the relay itself confirms it (its NIP-11 {@code self});
     * empty, with the directory unavailable saying why, when there is none to follow.
     */
    private Optional<SigningKey> signingKey(RelayInformation.Answer answer, Optional<RelayInformation> information) {
        Optional<PublicKey> self = information.flatMap(RelayInformation::self);
        if (settings.relayPubkey().isPresent()) {
            PublicKey configured = settings.relayPubkey().get();
            if (self.isPresent() && !self.get().equals(configured)) {
                LOG.warn("BUZZ_RELAY_PUBKEY {} is not the key the relay's NIP-11 document names as its own (self {});"
                        + " following {} as configured", configured, self.get(), configured);
            }
            return Optional.of(new SigningKey(configured, "BUZZ_RELAY_PUBKEY",
                    self.map(configured::equals).orElse(false)));
        }
        String why;
        if (answer instanceof RelayInformation.Answer.Unreadable unreadable) {
            why = unreadable.why() + "; the relay's own key (NIP-11 self) is needed to check its group state, or set"
                    + " BUZZ_RELAY_PUBKEY";
        } else if (self.isEmpty()) {
            why = "the relay's NIP-11 document at " + RelayInformation.documentUrl(settings.relay().url())
                    + " has no \"self\" (64 lowercase hex), the key a NIP-29 relay signs group state with; set"
                    + " BUZZ_RELAY_PUBKEY to that key" + information.flatMap(RelayInformation::pubkey)
                    .map(pubkey -> " (its \"pubkey\" " + pubkey + " is the operator's contact key, not necessarily"
                            + " that key)").orElse("");
        } else {
            return Optional.of(new SigningKey(self.get(), "the relay's NIP-11 self", true));
        }
        directory.unsynced(why);
        synchronized (lock) {
            refusal = why;
        }
        return Optional.empty();
    }

    /** A connection and the link it reads. */
    private record Attached(FeedConnection connection, RelayConnection.Link link) {
    }

    /** The connection layer's news, passed to the link's {@link FeedConnection}; what it decides is carried out. */
    private final class Events implements RelayConnection.Listener {
        @Override
        public Optional<String> beforeConnect() {
            synchronized (lock) {
                if (closed) {
                    return Optional.of("the group feed is closed");
                }
                refusal = null;
            }
            return prepare();
        }

        @Override
        public void opened(RelayConnection.Link link) {
            Attached attached = null;
            synchronized (lock) {
                FeedConnection connection = closed ? null : next;
                next = null;
                if (connection != null) {
                    attached = new Attached(connection, link);
                    current = attached;
                }
            }
            if (attached == null) {
                link.abort("the feed is closing");
                return;
            }
            apply(attached, attached.connection().startSync());
        }

        @Override
        public void received(RelayConnection.Link link, RelayMessage message) {
            Attached attached = on(link);
            if (attached != null) {
                apply(attached, attached.connection().received(message));
            }
        }

        @Override
        public void challenged(RelayConnection.Link link, String challenge) {
            Attached attached = on(link);
            if (attached != null) {
                apply(attached, attached.connection().challenged());
            }
        }

        @Override
        public void authAnswered(RelayConnection.Link link, boolean accepted, String message) {
            Attached attached = on(link);
            if (attached != null) {
                apply(attached, attached.connection().authAnswered(accepted, message));
            }
        }

        @Override
        public void ended(RelayConnection.Link link, int statusCode, String why, Duration retryIn) {
            synchronized (lock) {
                if (closed || current == null || current.link() != link) {
                    return;
                }
                current = null;
            }
            directory.unsynced("the relay's group state is not available: " + why);
            down(why, retryIn);
        }

        @Override
        public void unreachable(String why, int failures, Duration retryIn) {
            boolean refused;
            synchronized (lock) {
                if (closed) {
                    return;
                }
                refused = refusal != null;
            }
            String reason = refused ? why : "cannot connect to " + settings.relay().url() + ": " + why;
            if (!refused) {
                directory.unsynced("the relay's group state is not available: " + reason);
            }
            down(reason, retryIn);
        }

        private void down(String why, Duration retryIn) {
            if (why.equals(lastDown)) {
                LOG.debug("NIP-29 group feed from {} is still down ({}); reconnecting in {} ms",
                        settings.relay().url(), why, retryIn.toMillis());
                return;
            }
            lastDown = why;
            LOG.warn("NIP-29 group feed from {} is down ({}); reconnecting in {} ms (said once until it recovers)",
                    settings.relay().url(), why, retryIn.toMillis());
        }

        private Attached on(RelayConnection.Link link) {
            synchronized (lock) {
                return current != null && current.link() == link ? current : null;
            }
        }
    }

    private boolean isCurrent(Attached attached) {
        synchronized (lock) {
            return current == attached;
        }
    }

    /** Carries out what {@code attached}'s connection decided, in order. */
    private void apply(Attached attached, List<FeedStep> steps) {
        RelayConnection.Link link = attached.link();
        for (FeedStep step : steps) {
            switch (step) {
                case FeedStep.Send send -> link.send(send.text());
                case FeedStep.WatchPage watch -> watchPage(attached, watch);
                case FeedStep.Authenticate authenticate -> {
                    Optional<String> auth = link.authEvent(authSigner.orElseThrow(), clock);
                    if (auth.isPresent()) {
                        attached.connection().authSent();
                        link.send(auth.get());
                    }
                }
                case FeedStep.GiveUp giveUp -> link.abort(giveUp.why());
                case FeedStep.Moderate moderate -> moderate(moderate.event(), moderate.live());
                case FeedStep.PageSizeLowered lowered -> {
                    if (lowered.lowered().first()) {
                        LOG.warn("relay {} refused a NIP-29 backlog page of {} events ({}) and its NIP-11 document"
                                + " states no max_limit; asking for pages of {} (said once)", settings.relay().url(),
                                lowered.refused(), lowered.refusal().why(), lowered.lowered().size());
                    } else {
                        LOG.info("relay {} refused a NIP-29 backlog page of {} events ({}); asking for pages of {}",
                                settings.relay().url(), lowered.refused(), lowered.refusal().why(),
                                lowered.lowered().size());
                    }
                }
                case FeedStep.BacklogInSync synced -> {
                    if (isCurrent(attached)) {
                        link.healthy();
                        directory.synced();
                        lastDown = null;
                        LOG.info("NIP-29 group feed from {} is in sync: {} groups from {} state events signed by {}"
                                        + " ({}), {} backlog pages of up to {} events", settings.relay().url(),
                                directory.groupCount(), synced.signedState(), synced.key().pubkey(),
                                synced.key().source(), synced.pages(), synced.pageSize());
                    }
                }
                case FeedStep.ConfirmedLive confirmed -> {
                    if (isCurrent(attached)) {
                        directory.synced();
                        lastDown = null;
                        LOG.info("NIP-29 group feed from {} is in sync: the first group state signed by {} ({})"
                                + " arrived", settings.relay().url(), confirmed.key().pubkey(),
                                confirmed.key().source());
                    }
                }
                case FeedStep.Unconfirmed unconfirmed -> {
                    if (isCurrent(attached)) {
                        directory.unsynced(unconfirmed.why());
                        LOG.warn("NIP-29 group feed from {}: {}", settings.relay().url(), unconfirmed.why());
                    }
                }
                case FeedStep.Log log -> log(log.level(), log.line());
            }
        }
    }

    private static void log(Level level, String line) {
        switch (level) {
            case ERROR -> LOG.error(line);
            case WARN -> LOG.warn(line);
            case INFO -> LOG.info(line);
            case DEBUG -> LOG.debug(line);
            case TRACE -> LOG.trace(line);
        }
    }

    /** Tells the connection, in {@code watch.millis()}, that its page brought nothing, if it is still current. */
    private void watchPage(Attached attached, FeedStep.WatchPage watch) {
        try {
            ScheduledFuture<?> scheduled = timer.schedule(() -> {
                if (isCurrent(attached)) {
                    apply(attached, attached.connection().watchEnded(watch.page(), watch.refusal()));
                }
            }, watch.millis(), TimeUnit.MILLISECONDS);
            synchronized (lock) {
                if (pageWatch != null) {
                    pageWatch.cancel(false);
                }
                pageWatch = scheduled;
            }
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the feed is closing
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
}
