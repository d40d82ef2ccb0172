package buzz.scheduled.adapters.relay.nip29;

import buzz.scheduled.adapters.relay.RelayMessage;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import org.slf4j.event.Level;

/**
 * The group feed's state on one link: the live subscription, the backlog read page by page ({@link SyncPhase}), and
 * NIP-42 ({@link AuthState}). It reads the relay's messages and returns what to do about them as {@link FeedStep}s,
 * which the feed carries out on the link; it sends nothing itself and knows nothing of the feed. Relay messages
 * arrive one at a time, but the timer's page watches come from another thread, hence one lock over all of it.
 */
final class FeedConnection {
    /** How long after a {@code NOTICE} a page that brought nothing counts as refused. */
    static final long NOTICE_GRACE_MILLIS = 1_000;
    private static final int PROBE_LIMIT = 20;

    private final SigningKey key;
    private final PageSize pageSizes;
    private final GroupDirectory directory;
    private final EventSignatures signatures;
    private final boolean canAuthenticate;
    private final Duration connectTimeout;
    /** Events asked for per page; halved when the relay refuses a page. */
    private int pageSize;
    // guarded by this
    private SyncPhase phase;
    private boolean liveCaughtUp;
    private AuthState auth = new AuthState.NotAsked();

    /**
     * @param key             the key whose group state is followed
     * @param pageSize        events per backlog page for this connection
     * @param pageSizes       lowered when the relay refuses a page, kept across connections
     * @param directory       takes the group state
     * @param signatures      checks each event's id and signature
     * @param canAuthenticate whether the feed can answer {@code auth-required:} with AUTH
     * @param connectTimeout  how long a page may bring nothing before it counts as refused
     */
    FeedConnection(SigningKey key, int pageSize, PageSize pageSizes, GroupDirectory directory,
                   EventSignatures signatures, boolean canAuthenticate, Duration connectTimeout) {
        this.key = key;
        this.pageSize = pageSize;
        this.pageSizes = pageSizes;
        this.directory = directory;
        this.signatures = signatures;
        this.canAuthenticate = canAuthenticate;
        this.connectTimeout = connectTimeout;
        this.phase = new SyncPhase.Paging(new GroupBacklog(key.pubkey())); // no page asked for before startSync
    }

    /** Opens the live subscription, then reads the backlog from its first page. */
    synchronized List<FeedStep> startSync() {
        GroupBacklog backlog = new GroupBacklog(key.pubkey());
        phase = new SyncPhase.Paging(backlog);
        liveCaughtUp = false;
        List<FeedStep> steps = new ArrayList<>();
        steps.add(new FeedStep.Send("[\"REQ\",\"" + FeedSubscription.LIVE_ID + "\",{"
                + GroupBacklog.stateFilter(key.pubkey()) + ",\"limit\":1},{" + GroupBacklog.MODERATION_FILTER
                + ",\"limit\":1}]"));
        requestPage(steps, backlog);
        return steps;
    }

    /** A message from the relay. */
    synchronized List<FeedStep> received(RelayMessage message) {
        List<FeedStep> steps = new ArrayList<>();
        switch (message) {
            case RelayMessage.Event event -> event(steps, subscription(event.subscription()), event.event());
            case RelayMessage.EndOfStoredEvents eose -> endOfStored(steps, subscription(eose.subscription()));
            case RelayMessage.Closed closed -> closedByRelay(steps, subscription(closed.subscription()),
                    closed.subscription(), closed.message());
            case RelayMessage.Notice notice -> {
                steps.add(new FeedStep.Log(Level.INFO, "relay notice on the NIP-29 feed: " + notice.message()));
                // A relay that refuses a page by NOTICE names no subscription: a page that brings nothing soon
                // after one counts as refused.
                if (phase instanceof SyncPhase.Paging paging && paging.backlog().currentPageUntouched()) {
                    steps.add(new FeedStep.WatchPage(paging.backlog().currentPage(), NOTICE_GRACE_MILLIS,
                            new PageRefusal.AfterNotice(notice.message())));
                }
            }
            case RelayMessage.Ok ok -> steps.add(new FeedStep.Log(Level.DEBUG, "OK on the NIP-29 feed for "
                    + ok.eventId() + ", which sends no events"));
            case RelayMessage.Auth challenge -> {
                // the connection layer passes challenges to challenged()
            }
            case RelayMessage.Other other -> {
                // other message types do not concern the feed
            }
        }
        return steps;
    }

    /** A watch of {@link FeedStep.WatchPage} ran out: {@code page} is refused if nothing of it has come. */
    synchronized List<FeedStep> watchEnded(String page, PageRefusal refusal) {
        List<FeedStep> steps = new ArrayList<>();
        if (phase instanceof SyncPhase.Paging paging && paging.backlog().isCurrentPage(page)
                && paging.backlog().currentPageUntouched()) {
            pageRefused(steps, paging.backlog(), page, refusal);
        }
        return steps;
    }

    /** The relay sent a challenge: answered when a subscription already asked for AUTH. */
    synchronized List<FeedStep> challenged() {
        return switch (auth) {
            case AuthState.Wanted wanted -> List.of(new FeedStep.Authenticate());
            case AuthState.NotAsked notAsked -> List.of();
            case AuthState.Sent sent -> List.of();
            case AuthState.Accepted accepted -> List.of();
        };
    }

    /** The feed sent the AUTH of a {@link FeedStep.Authenticate}. */
    synchronized void authSent() {
        switch (auth) {
            case AuthState.Wanted wanted -> auth = new AuthState.Sent();
            case AuthState.NotAsked notAsked -> {
                // not asked for: nothing awaits it
            }
            case AuthState.Sent sent -> {
                // already waiting for its OK
            }
            case AuthState.Accepted accepted -> {
                // already accepted
            }
        }
    }

    /** The relay answered our AUTH. */
    synchronized List<FeedStep> authAnswered(boolean accepted, String message) {
        if (!accepted) {
            return List.of(new FeedStep.GiveUp("the relay refused the sidecar's NIP-42 AUTH: " + message));
        }
        auth = new AuthState.Accepted();
        return startSync(); // the same live subscription id again replaces it (NIP-01)
    }

    // -----------------------------------------------------------------------------------------------------------

    /** What {@code id} names now. */
    private FeedSubscription subscription(String id) {
        if (id.equals(FeedSubscription.LIVE_ID)) {
            return new FeedSubscription.Live();
        }
        return switch (phase) {
            case SyncPhase.Paging paging -> paging.backlog().isCurrentPage(id)
                    ? new FeedSubscription.Page(id, paging.backlog()) : new FeedSubscription.Stale();
            case SyncPhase.Probing probing -> id.equals(FeedSubscription.PROBE_ID)
                    ? new FeedSubscription.Probe(probing.otherSigners()) : new FeedSubscription.Stale();
            case SyncPhase.AwaitingSignedState awaiting -> new FeedSubscription.Stale();
            case SyncPhase.Synced synced -> new FeedSubscription.Stale();
        };
    }

    /** Asks for the current filter's next page: {@code limit}, and {@code until} after the first page. */
    private void requestPage(List<FeedStep> steps, GroupBacklog backlog) {
        String request = backlog.nextRequest(pageSize);
        steps.add(new FeedStep.WatchPage(backlog.currentPage(), connectTimeout.toMillis(),
                new PageRefusal.Unanswered(connectTimeout)));
        steps.add(new FeedStep.Send(request));
    }

    /**
     * The relay refused backlog page {@code page}: asked again at half the size, or the connection is given up when
     * even one event was refused.
     */
    private void pageRefused(List<FeedStep> steps, GroupBacklog backlog, String page, PageRefusal refusal) {
        int refusedSize = pageSize;
        steps.add(new FeedStep.Send("[\"CLOSE\",\"" + page + "\"]"));
        switch (pageSizes.refused(refusedSize)) {
            case PageSize.Lowered lowered -> {
                pageSize = lowered.size();
                steps.add(new FeedStep.PageSizeLowered(refusedSize, lowered, refusal));
                requestPage(steps, backlog);
            }
            case PageSize.AtOne atOne -> steps.add(new FeedStep.GiveUp("the relay refused a NIP-29 backlog page"
                    + " of one event (" + refusal.why() + "), so the page size is not the reason"));
        }
    }

    private void event(List<FeedStep> steps, FeedSubscription subscription, NostrEventJson.Decoded read) {
        GroupBacklog page;
        switch (subscription) {
            case FeedSubscription.Stale stale -> {
                return;
            }
            case FeedSubscription.Page open -> page = open.backlog();
            case FeedSubscription.Live live -> page = null;
            case FeedSubscription.Probe probe -> page = null;
        }
        // A page is counted whole, events it cannot use included: a short count means the end of the backlog.
        if (!(read instanceof NostrEventJson.Decoded.Event decoded)) {
            if (page != null) {
                page.countedUnreadable();
            }
            steps.add(new FeedStep.Log(Level.WARN, "ignoring a malformed event on the NIP-29 feed"));
            return;
        }
        NostrEvent event = decoded.event();
        boolean live = page == null && liveCaughtUp;
        if (page != null) {
            page.counted(event);
        }
        if (signatures.verify(event) instanceof EventSignatures.Verdict.Invalid invalid) {
            steps.add(new FeedStep.Log(Level.WARN, "ignoring event " + event.id() + " on the NIP-29 feed: "
                    + invalid.reason()));
            return;
        }
        if (subscription instanceof FeedSubscription.Probe probe) {
            probe.otherSigners().add(event.pubkey());
            return;
        }
        switch (event.kind()) {
            case GroupDirectory.METADATA, GroupDirectory.ADMINS, GroupDirectory.MEMBERS -> state(steps, event, live);
            case GroupDirectory.REMOVE_USER, GroupDirectory.DELETE_GROUP -> {
                if (phase instanceof SyncPhase.Paging paging) {
                    paging.backlog().hold(event, live);
                } else {
                    steps.add(new FeedStep.Moderate(event, live));
                }
            }
            default -> {
                // not asked for
            }
        }
    }

    private void state(List<FeedStep> steps, NostrEvent event, boolean live) {
        boolean byRelay = event.pubkey().equals(key.pubkey());
        if (!directory.acceptState(event) && !byRelay) {
            steps.add(new FeedStep.Log(Level.WARN, "ignoring group state event " + event.id()
                    + " not signed by the relay's key " + key.pubkey()));
        }
        if (!byRelay) {
            return;
        }
        switch (phase) {
            case SyncPhase.Paging paging -> paging.backlog().signedByTheRelay(event);
            case SyncPhase.AwaitingSignedState awaiting -> {
                if (live) {
                    phase = new SyncPhase.Synced();
                    steps.add(new FeedStep.ConfirmedLive(key));
                }
            }
            case SyncPhase.Probing probing -> {
                // the probe decides
            }
            case SyncPhase.Synced synced -> {
                // already trusted
            }
        }
    }

    private void endOfStored(List<FeedStep> steps, FeedSubscription subscription) {
        switch (subscription) {
            case FeedSubscription.Live live -> liveCaughtUp = true;
            case FeedSubscription.Probe probe -> {
                steps.add(new FeedStep.Send("[\"CLOSE\",\"" + FeedSubscription.PROBE_ID + "\"]"));
                unconfirmed(steps, probe);
            }
            case FeedSubscription.Page page -> {
                GroupBacklog backlog = page.backlog();
                GroupBacklog.PageEnd end = backlog.pageEnded(pageSize);
                steps.add(new FeedStep.Send("[\"CLOSE\",\"" + page.id() + "\"]"));
                switch (end) {
                    case MORE -> requestPage(steps, backlog);
                    case STUCK -> steps.add(new FeedStep.GiveUp(backlog.stuckReason(pageSize)));
                    case DONE -> backlogRead(steps, backlog);
                }
            }
            case FeedSubscription.Stale stale -> {
                // already closed
            }
        }
    }

    /** Every page is read: carry out the held moderation, then decide whether the state can be trusted. */
    private void backlogRead(List<FeedStep> steps, GroupBacklog backlog) {
        int signedState = backlog.signedState();
        boolean probe = signedState == 0 && !key.confirmed();
        phase = probe ? new SyncPhase.Probing(new LinkedHashSet<>()) : new SyncPhase.Synced();
        backlog.heldStored().forEach(event -> steps.add(new FeedStep.Moderate(event, false)));
        backlog.heldLive().forEach(event -> steps.add(new FeedStep.Moderate(event, true)));
        if (probe) {
            steps.add(new FeedStep.Send("[\"REQ\",\"" + FeedSubscription.PROBE_ID + "\",{\"kinds\":["
                    + GroupDirectory.METADATA + "],\"limit\":" + PROBE_LIMIT + "}]"));
            return;
        }
        steps.add(new FeedStep.BacklogInSync(key, signedState, backlog.pagesRead(), pageSize));
    }

    /** The backlog had no group state signed by an unconfirmed key: most likely the wrong key. */
    private void unconfirmed(List<FeedStep> steps, FeedSubscription.Probe probe) {
        List<PublicKey> others = probe.otherSigners().stream()
                .filter(k -> !k.equals(key.pubkey())).toList();
        phase = new SyncPhase.AwaitingSignedState();
        steps.add(new FeedStep.Unconfirmed("the relay has no group state signed by " + key.pubkey() + " ("
                + key.source() + "), and its NIP-11 document does not name that key as its own (self); "
                + (others.isEmpty() ? "no group state is signed by any other key either"
                : "group state on the relay is signed by " + others.stream().map(PublicKey::hex).toList())
                + ". Answering unavailable until group state signed by " + key.pubkey() + " arrives"));
    }

    private void closedByRelay(List<FeedStep> steps, FeedSubscription subscription, String id, String message) {
        boolean authRequired = message.startsWith("auth-required:");
        switch (subscription) {
            case FeedSubscription.Stale stale -> {
                return;
            }
            case FeedSubscription.Probe probe -> {
                if (!authRequired) {
                    unconfirmed(steps, probe); // the probe only explains; its refusal is no reason to drop the feed
                    return;
                }
            }
            case FeedSubscription.Page page -> {
                if (!authRequired) {
                    pageRefused(steps, page.backlog(), page.id(), new PageRefusal.Closed(message));
                    return;
                }
            }
            case FeedSubscription.Live live -> {
                // given up below, unless AUTH can help
            }
        }
        if (!authRequired || !canAuthenticate) {
            steps.add(new FeedStep.GiveUp("the relay closed the group subscription " + id + ": "
                    + (message.isEmpty() ? "(no reason)" : message)));
            return;
        }
        switch (auth) {
            case AuthState.NotAsked notAsked -> {
                auth = new AuthState.Wanted();
                steps.add(new FeedStep.Authenticate());
            }
            case AuthState.Wanted wanted -> steps.add(new FeedStep.Authenticate());
            case AuthState.Sent sent -> {
                // AUTH already sent; its OK restarts the sync
            }
            case AuthState.Accepted accepted -> steps.add(new FeedStep.GiveUp("the relay still wants NIP-42 AUTH"
                    + " after accepting the sidecar's: " + message));
        }
    }
}
