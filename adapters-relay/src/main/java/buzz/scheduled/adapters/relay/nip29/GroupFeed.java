package buzz.scheduled.adapters.relay.nip29;

import buzz.scheduled.adapters.relay.AuthEventSigner;
import buzz.scheduled.adapters.relay.RelayConnection;
import buzz.scheduled.adapters.relay.RelayInformation;
import buzz.scheduled.adapters.relay.RelayMessage;
import buzz.scheduled.adapters.relay.nip29.GroupDirectory.Moderation;
import buzz.scheduled.application.port.in.DeleteChannelUseCase;
import buzz.scheduled.application.port.in.RemoveMemberUseCase;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashSet;
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
 * ({@code CLOSED}, other than {@code auth-required:}), or that brings nothing within {@value #NOTICE_GRACE_MILLIS} ms
 * of a {@code NOTICE} or within the connect timeout, is asked again at half the size ({@link PageSize}: WARN the
 * first time, kept for later connections); a page of one event refused gives the connection up.
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
 */
public final class GroupFeed implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupFeed.class);
    /** The live subscription's id. */
    static final String SUBSCRIPTION = "buzz-nip29";
    /** Prefix of the backlog pages' subscription ids. */
    static final String PAGE_SUBSCRIPTION = "buzz-nip29-page-";
    /** The subscription that looks for group state by other keys when the relay's key signed none. */
    static final String PROBE_SUBSCRIPTION = "buzz-nip29-probe";
    private static final int PROBE_LIMIT = 20;
    /** How long after a {@code NOTICE} a page that brought nothing counts as refused. */
    static final long NOTICE_GRACE_MILLIS = 1_000;
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
    private Connection current;
    /** What the NIP-11 document said before the attempt under way, for the link it opens. */
    private Connection next;
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
        // HTTP/1.1: an HTTP/2 upgrade offer on the NIP-11 request would look like a failed WebSocket upgrade.
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(settings.relay().connectTimeout()).build();
        this.timer = Executors.newSingleThreadScheduledExecutor(daemon("nip29-feed-timer"));
        this.actions = Executors.newSingleThreadExecutor(daemon("nip29-moderation"));
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
            next = new Connection(key.get(), pageSize);
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

    /**
     * The key whose group state the feed follows.
     *
     * @param source    where it comes from, for log lines
     * @param confirmed whether the relay's NIP-11 {@code self} names it (then an empty backlog means no groups)
     */
    private record SigningKey(PublicKey pubkey, String source, boolean confirmed) {
    }

    /** The connection layer's news, passed to the link's {@link Connection}. */
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
            Connection connection;
            synchronized (lock) {
                connection = closed ? null : next;
                next = null;
                if (connection != null) {
                    connection.link = link;
                    current = connection;
                }
            }
            if (connection == null) {
                link.abort("the feed is closing");
                return;
            }
            connection.startSync();
        }

        @Override
        public void received(RelayConnection.Link link, RelayMessage message) {
            Connection connection = on(link);
            if (connection != null) {
                connection.receive(message);
            }
        }

        @Override
        public void challenged(RelayConnection.Link link, String challenge) {
            Connection connection = on(link);
            if (connection != null) {
                connection.challenged();
            }
        }

        @Override
        public void authAnswered(RelayConnection.Link link, boolean accepted, String message) {
            Connection connection = on(link);
            if (connection != null) {
                connection.authAnswered(accepted, message);
            }
        }

        @Override
        public void ended(RelayConnection.Link link, int statusCode, String why, Duration retryIn) {
            synchronized (lock) {
                if (closed || current == null || current.link != link) {
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

        private Connection on(RelayConnection.Link link) {
            synchronized (lock) {
                return current != null && current.link == link ? current : null;
            }
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

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * The feed's state on one link: the live subscription, the backlog read page by page, and NIP-42. Relay messages
     * arrive one at a time; the fields below are also touched by the moderation and timer threads, hence the
     * locking.
     */
    private final class Connection {
        private final SigningKey key;
        /** Events asked for per page; halved when the relay refuses a page. */
        private int pageSize;
        /** The check that a page the relay did not answer counts as refused. */
        private ScheduledFuture<?> pageWatch;
        /** Set once, when the link opens. */
        private RelayConnection.Link link;
        // The sync of the backlog (reset when it starts again after AUTH).
        private GroupBacklog backlog;
        private boolean liveCaughtUp;
        private boolean synced;
        private boolean awaitingSignedState;
        private boolean probing;
        private final Set<PublicKey> otherSigners = new LinkedHashSet<>();
        // NIP-42
        private boolean authWanted;
        private boolean authenticated;

        Connection(SigningKey key, int pageSize) {
            this.key = key;
            this.pageSize = pageSize;
        }

        /** Opens the live subscription, then reads the backlog from its first page. */
        private void startSync() {
            synchronized (this) {
                backlog = new GroupBacklog(key.pubkey());
                liveCaughtUp = false;
                synced = false;
                awaitingSignedState = false;
                probing = false;
            }
            send("[\"REQ\",\"" + SUBSCRIPTION + "\",{" + GroupBacklog.stateFilter(key.pubkey()) + ",\"limit\":1},{"
                    + GroupBacklog.MODERATION_FILTER + ",\"limit\":1}]");
            requestPage();
        }

        /** Asks for the current filter's next page: {@code limit}, and {@code until} after the first page. */
        private void requestPage() {
            String request;
            String page;
            synchronized (this) {
                request = backlog.nextRequest(pageSize);
                page = backlog.currentPage();
            }
            watchPage(page, settings.relay().connectTimeout().toMillis(), "no answer within "
                    + settings.relay().connectTimeout());
            send(request);
        }

        /** In {@code millis}, counts {@code page} as refused for {@code why} if nothing of it has arrived by then. */
        private void watchPage(String page, long millis, String why) {
            try {
                ScheduledFuture<?> watch = timer.schedule(() -> {
                    boolean unanswered;
                    synchronized (this) {
                        unanswered = backlog.isCurrentPage(page) && backlog.currentPageUntouched();
                    }
                    if (unanswered && isCurrent()) {
                        pageRefused(page, why);
                    }
                }, millis, TimeUnit.MILLISECONDS);
                synchronized (this) {
                    if (pageWatch != null) {
                        pageWatch.cancel(false);
                    }
                    pageWatch = watch;
                }
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // the feed is closing
            }
        }

        /**
         * The relay refused backlog page {@code page} (CLOSED, or nothing after a NOTICE or within the connect
         * timeout): asked again at half the size, or the connection is given up when even one event was refused.
         */
        private void pageRefused(String page, String why) {
            int refusedSize;
            synchronized (this) {
                if (!backlog.isCurrentPage(page)) {
                    return;
                }
                refusedSize = pageSize;
            }
            send("[\"CLOSE\",\"" + page + "\"]");
            switch (pageSizes.refused(refusedSize)) {
                case PageSize.Lowered lowered -> {
                    synchronized (this) {
                        pageSize = lowered.size();
                    }
                    if (lowered.first()) {
                        LOG.warn("relay {} refused a NIP-29 backlog page of {} events ({}) and its NIP-11 document"
                                + " states no max_limit; asking for pages of {} (said once)", settings.relay().url(),
                                refusedSize, why, lowered.size());
                    } else {
                        LOG.info("relay {} refused a NIP-29 backlog page of {} events ({}); asking for pages of {}",
                                settings.relay().url(), refusedSize, why, lowered.size());
                    }
                    requestPage();
                }
                case PageSize.AtOne atOne -> abort("the relay refused a NIP-29 backlog page of one event (" + why
                        + "), so the page size is not the reason");
            }
        }

        private void send(String text) {
            link.send(text);
        }

        void receive(RelayMessage message) {
            switch (message) {
                case RelayMessage.Event event -> event(event.subscription(), event.event());
                case RelayMessage.EndOfStoredEvents eose -> endOfStored(eose.subscription());
                case RelayMessage.Closed closedByRelay -> {
                    if (open(closedByRelay.subscription())) {
                        closedByRelay(closedByRelay.subscription(), closedByRelay.message());
                    }
                }
                case RelayMessage.Notice notice -> {
                    LOG.info("relay notice on the NIP-29 feed: {}", notice.message());
                    // A relay that refuses a page by NOTICE names no subscription: a page that brings nothing
                    // soon after one counts as refused.
                    String page;
                    synchronized (this) {
                        page = backlog.currentPageUntouched() ? backlog.currentPage() : null;
                    }
                    if (page != null) {
                        watchPage(page, NOTICE_GRACE_MILLIS, "NOTICE " + notice.message());
                    }
                }
                case RelayMessage.Ok ok -> LOG.debug("OK on the NIP-29 feed for {}, which sends no events",
                        ok.eventId());
                case RelayMessage.Auth auth -> {
                    // the connection layer passes challenges to challenged()
                }
                case RelayMessage.Other other -> {
                    // other message types do not concern the feed
                }
            }
        }

        /** Whether {@code subscription} is one of ours still open: the live one, the current page, the probe. */
        private synchronized boolean open(String subscription) {
            return subscription.equals(SUBSCRIPTION) || backlog.isCurrentPage(subscription)
                    || (probing && subscription.equals(PROBE_SUBSCRIPTION));
        }

        private void event(String subscription, NostrEventJson.Decoded read) {
            boolean page;
            synchronized (this) {
                page = backlog.isCurrentPage(subscription);
            }
            boolean probe = subscription.equals(PROBE_SUBSCRIPTION);
            if (!page && !probe && !subscription.equals(SUBSCRIPTION)) {
                return;
            }
            // A page is counted whole, events it cannot use included: a short count means the end of the backlog.
            if (!(read instanceof NostrEventJson.Decoded.Event decoded)) {
                if (page) {
                    synchronized (this) {
                        backlog.countedUnreadable();
                    }
                }
                LOG.warn("ignoring a malformed event on the NIP-29 feed");
                return;
            }
            NostrEvent event = decoded.event();
            boolean live;
            synchronized (this) {
                live = !page && liveCaughtUp;
                if (page) {
                    backlog.counted(event);
                }
            }
            if (signatures.verify(event) instanceof EventSignatures.Verdict.Invalid invalid) {
                LOG.warn("ignoring event {} on the NIP-29 feed: {}", event.id(), invalid.reason());
                return;
            }
            if (probe) {
                synchronized (this) {
                    otherSigners.add(event.pubkey());
                }
                return;
            }
            switch (event.kind()) {
                case GroupDirectory.METADATA, GroupDirectory.ADMINS, GroupDirectory.MEMBERS -> state(event, live);
                case GroupDirectory.REMOVE_USER, GroupDirectory.DELETE_GROUP -> {
                    boolean hold;
                    synchronized (this) {
                        hold = !synced;
                        if (hold) {
                            backlog.hold(event, live);
                        }
                    }
                    if (!hold) {
                        moderate(event, live);
                    }
                }
                default -> {
                    // not asked for
                }
            }
        }

        private void state(NostrEvent event, boolean live) {
            boolean byRelay = event.pubkey().equals(key.pubkey());
            if (!directory.acceptState(event) && !byRelay) {
                LOG.warn("ignoring group state event {} not signed by the relay's key {}", event.id(), key.pubkey());
            }
            if (!byRelay) {
                return;
            }
            boolean confirmedNow;
            synchronized (this) {
                backlog.signedByTheRelay(event);
                confirmedNow = live && awaitingSignedState;
                if (confirmedNow) {
                    awaitingSignedState = false;
                }
            }
            if (confirmedNow && isCurrent()) {
                directory.synced();
                lastDown = null;
                LOG.info("NIP-29 group feed from {} is in sync: the first group state signed by {} ({}) arrived",
                        settings.relay().url(), key.pubkey(), key.source());
            }
        }

        private void endOfStored(String subscription) {
            if (subscription.equals(SUBSCRIPTION)) {
                synchronized (this) {
                    liveCaughtUp = true;
                }
                return;
            }
            if (subscription.equals(PROBE_SUBSCRIPTION)) {
                if (open(subscription)) {
                    send("[\"CLOSE\",\"" + PROBE_SUBSCRIPTION + "\"]");
                    unconfirmed();
                }
                return;
            }
            GroupBacklog.PageEnd end;
            synchronized (this) {
                if (!backlog.isCurrentPage(subscription)) {
                    return;
                }
                end = backlog.pageEnded(pageSize);
            }
            send("[\"CLOSE\",\"" + subscription + "\"]");
            switch (end) {
                case MORE -> requestPage();
                case STUCK -> {
                    String why;
                    synchronized (this) {
                        why = backlog.stuckReason(pageSize);
                    }
                    abort(why);
                }
                case DONE -> backlogRead();
            }
        }

        /** Every page is read: carry out the held moderation, then decide whether the state can be trusted. */
        private void backlogRead() {
            List<NostrEvent> stored;
            List<NostrEvent> live;
            int signedState;
            int pages;
            synchronized (this) {
                stored = backlog.heldStored();
                live = backlog.heldLive();
                signedState = backlog.signedState();
                pages = backlog.pagesRead();
                synced = true;
            }
            stored.forEach(event -> moderate(event, false));
            live.forEach(event -> moderate(event, true));
            if (signedState == 0 && !key.confirmed()) {
                synchronized (this) {
                    probing = true;
                }
                send("[\"REQ\",\"" + PROBE_SUBSCRIPTION + "\",{\"kinds\":[" + GroupDirectory.METADATA
                        + "],\"limit\":" + PROBE_LIMIT + "}]");
                return;
            }
            if (!isCurrent()) {
                return;
            }
            link.healthy();
            directory.synced();
            lastDown = null;
            LOG.info("NIP-29 group feed from {} is in sync: {} groups from {} state events signed by {} ({}), {}"
                            + " backlog pages of up to {} events", settings.relay().url(), directory.groupCount(),
                    signedState, key.pubkey(), key.source(), pages, pageSize);
        }

        /** The backlog had no group state signed by an unconfirmed key: most likely the wrong key. */
        private void unconfirmed() {
            List<PublicKey> others;
            synchronized (this) {
                probing = false;
                others = otherSigners.stream().filter(k -> !k.equals(key.pubkey())).toList();
                awaitingSignedState = true;
            }
            String why = "the relay has no group state signed by " + key.pubkey() + " (" + key.source() + "), and"
                    + " its NIP-11 document does not name that key as its own (self); "
                    + (others.isEmpty() ? "no group state is signed by any other key either"
                    : "group state on the relay is signed by " + others.stream().map(PublicKey::hex).toList())
                    + ". Answering unavailable until group state signed by " + key.pubkey() + " arrives";
            if (isCurrent()) {
                directory.unsynced(why);
                LOG.warn("NIP-29 group feed from {}: {}", settings.relay().url(), why);
            }
        }

        private boolean isCurrent() {
            synchronized (lock) {
                return current == this;
            }
        }

        private void closedByRelay(String subscription, String why) {
            if (subscription.equals(PROBE_SUBSCRIPTION) && !why.startsWith("auth-required:")) {
                unconfirmed(); // the probe only explains; its refusal is no reason to drop the feed
                return;
            }
            boolean page;
            synchronized (this) {
                page = backlog.isCurrentPage(subscription);
            }
            if (page && !why.startsWith("auth-required:")) {
                pageRefused(subscription, "CLOSED " + (why.isEmpty() ? "(no reason)" : why));
                return;
            }
            if (why.startsWith("auth-required:") && authSigner.isPresent()) {
                boolean again;
                synchronized (this) {
                    if (link.authPending() && !authenticated) {
                        return; // AUTH already sent; its OK restarts the sync
                    }
                    again = authenticated;
                    if (!again) {
                        authWanted = true;
                    }
                }
                if (again) {
                    abort("the relay still wants NIP-42 AUTH after accepting the sidecar's: " + why);
                } else {
                    authenticate();
                }
                return;
            }
            abort("the relay closed the group subscription " + subscription + ": "
                    + (why.isEmpty() ? "(no reason)" : why));
        }

        /** A challenge arrived: answered when a subscription already asked for AUTH. */
        void challenged() {
            boolean wanted;
            synchronized (this) {
                wanted = authWanted;
            }
            if (wanted) {
                authenticate();
            }
        }

        /** Sends AUTH for the link's challenge; without one yet, {@link #challenged} sends it when it comes. */
        private void authenticate() {
            Optional<String> auth = link.authEvent(authSigner.orElseThrow(), clock);
            if (auth.isEmpty()) {
                return;
            }
            synchronized (this) {
                authWanted = false;
            }
            send(auth.get());
        }

        void authAnswered(boolean accepted, String message) {
            if (accepted) {
                synchronized (this) {
                    authenticated = true;
                }
                startSync(); // the same live subscription id again replaces it (NIP-01)
            } else {
                abort("the relay refused the sidecar's NIP-42 AUTH: " + message);
            }
        }

        void abort(String why) {
            link.abort(why);
        }
    }
}
