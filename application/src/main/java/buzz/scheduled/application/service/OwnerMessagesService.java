package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.CancelMatchingUseCase;
import buzz.scheduled.application.port.in.CancelMessageUseCase;
import buzz.scheduled.application.port.in.GetMessageUseCase;
import buzz.scheduled.application.port.in.ListMessagesUseCase.ListQuery;
import buzz.scheduled.application.port.in.ListMessagesUseCase.Page;
import buzz.scheduled.application.port.in.ListMessagesUseCase;
import buzz.scheduled.application.port.in.OwnerChangeResult;
import buzz.scheduled.application.port.in.ReviseMessageUseCase;
import buzz.scheduled.application.port.in.ScheduleBatchUseCase;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase;
import buzz.scheduled.application.port.in.SendNowUseCase;
import buzz.scheduled.application.port.in.SeriesSummaryUseCase;
import buzz.scheduled.application.port.out.AccessPolicy.AccessDecision;
import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.application.port.out.DueWorkNotice;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.application.port.out.MessageAdmission.CreateResult;
import buzz.scheduled.application.port.out.MessageAdmission.WindowScope;
import buzz.scheduled.application.port.out.MessageAdmission;
import buzz.scheduled.application.port.out.OwnerMessageChanges.ReviseResult;
import buzz.scheduled.application.port.out.OwnerMessageChanges;
import buzz.scheduled.application.port.out.OwnerMessageQueries;
import buzz.scheduled.application.port.out.OwnerWriteLimiter;
import buzz.scheduled.application.port.out.RelayLimits;
import buzz.scheduled.application.port.out.ScheduleIdSource;
import buzz.scheduled.application.port.out.StoreClock;
import buzz.scheduled.application.service.AdmissionChecks.Admit;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Admission;
import buzz.scheduled.domain.schedule.AdmissionRules.Timing;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.OwnerOutcome;
import buzz.scheduled.domain.schedule.Refusal;
import buzz.scheduled.domain.schedule.RefusalCode;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.SeriesId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The owner's side: schedule, edit, cancel, send now, get and list (docs/openapi.yaml, tag owner). Admission applies
 * the rules in the admission order of docs/openapi.yaml — event validity, ownership, kind/channel/size/expiration,
 * time, then what the relay's NIP-11 limitation refuses ({@link RelayAdmission}), then tombstone, access and limits —
 * and stores nothing on any refusal.
 *
 * <p>"Now" is the store's clock ({@link StoreClock}), the clock delivery decides on, never this host's own: a host
 * whose clock drifts neither refuses events due within the drift nor dates a send-now away from the database's now.
 * Every committed create, edit and send-now tells this process's dispatcher its due time ({@link DueWorkNotice}),
 * so it is picked up at once even while the database's own notifications do not arrive.
 */
public final class OwnerMessagesService implements ScheduleMessageUseCase, ReviseMessageUseCase,
        CancelMessageUseCase, SendNowUseCase, GetMessageUseCase, ListMessagesUseCase, ScheduleBatchUseCase,
        CancelMatchingUseCase, SeriesSummaryUseCase {

    /** Compare-and-set attempts before a change gives up to a storm of concurrent writers. */
    private static final int MAX_CAS_ATTEMPTS = 8;

    private final OwnerMessageQueries queries;
    private final MessageAdmission admissions;
    private final OwnerMessageChanges changes;
    private final AccessPolicy access;
    private final ScheduleIdSource ids;
    private final StoreClock clock;
    private final DueWorkNotice dueWork;
    private final SchedulingSettings settings;
    private final RelayAdmission relay;
    private final AdmissionChecks checks;
    private final OwnerWriteLimiter writes;

    /**
     * The service without knowledge of the relay's limits ({@link RelayLimits#UNKNOWN}).
     *
     * @param clock   the store's clock, for every due-time decision
     * @param dueWork told the due time of every committed create, edit and send-now
     */
    public OwnerMessagesService(OwnerMessageQueries queries, MessageAdmission admission, OwnerMessageChanges changes,
                                EventSignatures signatures, AccessPolicy access, ScheduleIdSource ids,
                                StoreClock clock, DueWorkNotice dueWork, SchedulingSettings settings) {
        this(queries, admission, changes, signatures, access, ids, clock, dueWork, settings, RelayLimits.UNKNOWN);
    }

    /**
     * @param queries     the owner's reads (get, list, the read before each change)
     * @param admission   stores an admitted message with its limits; tells deleted channels
     * @param changes     compare-and-set writes of edits, cancels and send-nows
     * @param clock       the store's clock, for every due-time decision
     * @param dueWork     told the due time of every committed create, edit and send-now
     * @param relayLimits the relay's NIP-11 limitation, read on every admission and send-now
     */
    public OwnerMessagesService(OwnerMessageQueries queries, MessageAdmission admission, OwnerMessageChanges changes,
                                EventSignatures signatures, AccessPolicy access, ScheduleIdSource ids,
                                StoreClock clock, DueWorkNotice dueWork, SchedulingSettings settings,
                                RelayLimits relayLimits) {
        this(queries, admission, changes, signatures, access, ids, clock, dueWork, settings, relayLimits,
                OwnerWriteLimiter.UNLIMITED);
    }

    /**
     * @param queries     the owner's reads (get, list, the read before each change)
     * @param admission   stores an admitted message with its limits; tells deleted channels
     * @param changes     compare-and-set writes of edits, cancels and send-nows
     * @param clock       the store's clock, for every due-time decision
     * @param dueWork     told the due time of every committed create, edit and send-now
     * @param relayLimits the relay's NIP-11 limitation, read on every admission and send-now
     * @param writes      the per-owner write rate, asked first by every create, edit, cancel and send-now
     */
    public OwnerMessagesService(OwnerMessageQueries queries, MessageAdmission admission, OwnerMessageChanges changes,
                                EventSignatures signatures, AccessPolicy access, ScheduleIdSource ids,
                                StoreClock clock, DueWorkNotice dueWork, SchedulingSettings settings,
                                RelayLimits relayLimits, OwnerWriteLimiter writes) {
        if (queries == null || admission == null || changes == null) {
            throw new IllegalArgumentException("the owner service needs its three storage ports");
        }
        if (clock == null || dueWork == null) {
            throw new IllegalArgumentException("the owner service needs the store's clock and a due-work notice");
        }
        this.queries = queries;
        this.admissions = admission;
        this.changes = changes;
        this.access = access;
        this.ids = ids;
        this.clock = clock;
        this.dueWork = dueWork;
        this.settings = settings;
        this.relay = new RelayAdmission(relayLimits, settings.relayWindow());
        this.checks = new AdmissionChecks(signatures, access, settings.rules(), relay, admission);
        if (writes == null) {
            throw new IllegalArgumentException("the owner service needs a write limiter (OwnerWriteLimiter.UNLIMITED)");
        }
        this.writes = writes;
    }

    @Override
    public ScheduleResult schedule(ScheduleMessageCommand command) {
        Optional<Duration> wait = writes.tryWrite(command.owner());
        if (wait.isPresent()) {
            return new ScheduleResult.RateLimited(wait.get(), rateLimitedMessage(wait.get()));
        }
        Instant now = clock.now();
        Admission admission;
        switch (checks.admit(command.owner(), command.event(), Timing.FUTURE, now)) {
            case Admit.Ok ok -> admission = ok.admission();
            case Admit.No no -> {
                return new ScheduleResult.Refused(no.refusal());
            }
            case Admit.Down down -> {
                return new ScheduleResult.Unavailable(down.message());
            }
        }
        ScheduledMessage message = ScheduledMessage.admit(ids.next(), admission, now);
        String key = command.idempotencyKey().orElse(command.event().id().hex());
        CreateResult created = admissions.create(message, new MessageAdmission.IdempotencyKey(command.owner(), key),
                settings.limits());
        if (created instanceof CreateResult.Created c) {
            dueWork.dueAt(c.message().dueAt());
        }
        return answer(created, message);
    }

    /**
     * Each item exactly as {@link #schedule} checks one — the same {@link AdmissionChecks#screen}, tombstone and
     * access steps and the store's limits ({@link MessageAdmission#createBatch}) — with three things shared by the
     * batch: the owner's rate (all its writes at once), one tombstone look-up for its channels, and one access
     * question per channel and kind.
     */
    @Override
    public BatchResult scheduleBatch(ScheduleBatchCommand command) {
        PublicKey owner = command.owner();
        List<BatchItem> items = command.items();
        Optional<Duration> wait = writes.tryWrites(owner, items.size());
        if (wait.isPresent()) {
            return new BatchResult.RateLimited(wait.get(), batchRateLimitedMessage(items.size(), wait.get()));
        }
        Instant now = clock.now();
        ScheduleResult[] results = new ScheduleResult[items.size()];
        Admission[] screened = new Admission[items.size()];
        Set<Channel> channels = new LinkedHashSet<>();
        List<NostrEvent> signedEvents = new ArrayList<>();
        for (BatchItem item : items) {
            if (item instanceof BatchItem.Signed signed) {
                signedEvents.add(signed.event());
            }
        }
        Iterator<EventSignatures.Verdict> verdicts = checks.verifyAll(signedEvents).iterator();
        for (int i = 0; i < items.size(); i++) {
            switch (items.get(i)) {
                case BatchItem.Malformed malformed -> results[i] = new ScheduleResult.Refused(malformed.refusal());
                case BatchItem.Signed signed -> {
                    switch (checks.screen(owner, signed.event(), verdicts.next(), Timing.FUTURE, now)) {
                        case Admit.Ok ok -> {
                            screened[i] = ok.admission();
                            channels.add(ok.admission().channel());
                        }
                        case Admit.No no -> results[i] = new ScheduleResult.Refused(no.refusal());
                        case Admit.Down down -> results[i] = new ScheduleResult.Unavailable(down.message());
                    }
                }
            }
        }
        Set<Channel> deleted = channels.isEmpty() ? Set.of() : admissions.deletedChannels(channels);
        Map<AccessQuestion, AccessDecision> decisions = new HashMap<>();
        Optional<SeriesId> series = command.series() ? Optional.of(new SeriesId(ids.next().value()))
                : Optional.empty();
        List<MessageAdmission.BatchEntry> entries = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            if (screened[i] == null) {
                continue;
            }
            switch (AdmissionChecks.decide(owner, screened[i], deleted::contains,
                    (channel, kind) -> decisions.computeIfAbsent(new AccessQuestion(channel, kind),
                            question -> access.check(owner, channel, kind)))) {
                case Admit.Ok ok -> {
                    ScheduledMessage admitted = ScheduledMessage.admit(ids.next(), ok.admission(), now);
                    ScheduledMessage message = series.map(admitted::inSeries).orElse(admitted);
                    String key = ((BatchItem.Signed) items.get(i)).idempotencyKey()
                            .orElse(message.eventId().hex());
                    entries.add(new MessageAdmission.BatchEntry(message, new MessageAdmission.IdempotencyKey(owner,
                            key)));
                    positions.add(i);
                }
                case Admit.No no -> results[i] = new ScheduleResult.Refused(no.refusal());
                case Admit.Down down -> results[i] = new ScheduleResult.Unavailable(down.message());
            }
        }
        List<CreateResult> stored = entries.isEmpty() ? List.of() : admissions.createBatch(entries, settings.limits());
        if (stored.size() != entries.size()) {
            throw new IllegalStateException("the store answered " + stored.size() + " of " + entries.size()
                    + " batch entries");
        }
        Optional<Instant> earliest = Optional.empty();
        for (int j = 0; j < entries.size(); j++) {
            CreateResult created = stored.get(j);
            if (created instanceof CreateResult.Created c
                    && earliest.map(e -> c.message().dueAt().isBefore(e)).orElse(true)) {
                earliest = Optional.of(c.message().dueAt());
            }
            results[positions.get(j)] = answer(created, entries.get(j).message());
        }
        earliest.ifPresent(dueWork::dueAt);
        return new BatchResult.Answered(List.of(results), answeredSeries(series, stored));
    }

    /** The series a batch answers: its own if it created anything, else that of its first replayed series item. */
    private static Optional<SeriesId> answeredSeries(Optional<SeriesId> series, List<CreateResult> stored) {
        if (series.isEmpty()) {
            return Optional.empty();
        }
        if (stored.stream().anyMatch(CreateResult.Created.class::isInstance)) {
            return series;
        }
        return stored.stream()
                .flatMap(result -> result instanceof CreateResult.Replayed r ? r.message().series().stream()
                        : java.util.stream.Stream.empty())
                .findFirst();
    }

    /** The answer to a create the store decided, for {@code message} (the one offered for storage). */
    private ScheduleResult answer(CreateResult created, ScheduledMessage message) {
        return switch (created) {
            case CreateResult.Created c -> new ScheduleResult.Created(c.message());
            case CreateResult.Replayed r -> new ScheduleResult.Replayed(r.message());
            case CreateResult.IdempotencyConflict c -> new ScheduleResult.IdempotencyConflict(
                    "idempotency key was used for event " + c.existingEventId() + " (message " + c.existing()
                            + "), not for event " + message.eventId());
            case CreateResult.ChannelDeleted d -> new ScheduleResult.Refused(new Refusal(
                    RefusalCode.CHANNEL_NOT_FOUND, "channel " + message.channel() + " was deleted"));
            case CreateResult.TooManyPending t -> new ScheduleResult.Refused(new Refusal(
                    RefusalCode.TOO_MANY_PENDING, "owner already has " + t.limit() + " pending scheduled messages"));
            case CreateResult.ChannelWindowFull w -> new ScheduleResult.Refused(
                    windowFull(message.channel(), w.scope(), w.limit(), w.windowStart()));
        };
    }

    @Override
    public CancelMatchingResult cancelMatching(CancelMatchingCommand command) {
        Optional<Duration> wait = writes.tryWrite(command.owner());
        if (wait.isPresent()) {
            return new CancelMatchingResult.RateLimited(wait.get(), rateLimitedMessage(wait.get()));
        }
        return changes.cancelMatching(command.owner(), command.selection());
    }

    @Override
    public Optional<SeriesSummary> seriesSummary(PublicKey owner, SeriesId series) {
        return queries.seriesSummary(owner, series);
    }

    @Override
    public OwnerChangeResult revise(ReviseMessageCommand command) {
        Optional<OwnerChangeResult> limited = rateLimited(command.owner());
        if (limited.isPresent()) {
            return limited.get();
        }
        Instant now = clock.now();
        if (owned(command.owner(), command.id()).isEmpty()) {
            return new OwnerChangeResult.NotFound();
        }
        return switch (checks.admit(command.owner(), command.event(), Timing.FUTURE, now)) {
            case Admit.Ok ok -> change(command.owner(), command.id(), true,
                    current -> current.revise(ok.admission(), command.ifMatch(), now));
            case Admit.No no -> new OwnerChangeResult.Refused(no.refusal());
            case Admit.Down down -> new OwnerChangeResult.Unavailable(down.message());
        };
    }

    @Override
    public OwnerChangeResult cancel(CancelMessageCommand command) {
        Optional<OwnerChangeResult> limited = rateLimited(command.owner());
        if (limited.isPresent()) {
            return limited.get();
        }
        Instant now = clock.now();
        return change(command.owner(), command.id(), false, current -> current.cancel(now));
    }

    @Override
    public OwnerChangeResult sendNow(SendNowCommand command) {
        Optional<OwnerChangeResult> limited = rateLimited(command.owner());
        if (limited.isPresent()) {
            return limited.get();
        }
        Instant now = clock.now();
        if (command.event().isEmpty()) {
            return change(command.owner(), command.id(), false,
                    current -> current.sendNow(relay.window(), now));
        }
        if (owned(command.owner(), command.id()).isEmpty()) {
            return new OwnerChangeResult.NotFound();
        }
        return switch (checks.admit(command.owner(), command.event().get(), Timing.IMMEDIATE, now)) {
            case Admit.Ok ok -> change(command.owner(), command.id(), true,
                    current -> current.sendNow(ok.admission(), relay.window(), now));
            case Admit.No no -> new OwnerChangeResult.Refused(no.refusal());
            case Admit.Down down -> new OwnerChangeResult.Unavailable(down.message());
        };
    }

    @Override
    public Optional<ScheduledMessage> get(PublicKey owner, ScheduleId id) {
        return owned(owner, id);
    }

    @Override
    public Page list(ListQuery query) {
        return queries.list(query);
    }

    /** Takes one of {@code owner}'s writes; the refusal when none is left. */
    private Optional<OwnerChangeResult> rateLimited(PublicKey owner) {
        return writes.tryWrite(owner).map(wait -> new OwnerChangeResult.RateLimited(wait, rateLimitedMessage(wait)));
    }

    private static String rateLimitedMessage(Duration wait) {
        long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
        return "too many writes from this owner; the next create, edit, cancel or send-now is allowed in " + seconds
                + " s (retry after " + seconds + " s)";
    }

    private static String batchRateLimitedMessage(int events, Duration wait) {
        long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
        return "too many writes from this owner; a batch of " + events + " events takes " + events
                + " writes at once (one from a full allowance when it holds fewer), which this owner has in "
                + seconds + " s (retry after " + seconds + " s); nothing was stored";
    }

    private Optional<ScheduledMessage> owned(PublicKey owner, ScheduleId id) {
        return queries.find(id).filter(message -> message.owner().equals(owner));
    }

    /**
     * Reads, applies the domain transition, compare-and-sets; re-reads and tries again on a lost race. A
     * re-admitted revision ({@code readmitted}) is written with the channel's tombstone and window limit
     * re-checked under the channel lock.
     */
    private OwnerChangeResult change(PublicKey owner, ScheduleId id, boolean readmitted,
                                     Function<ScheduledMessage, OwnerOutcome> op) {
        for (int attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
            Optional<ScheduledMessage> found = owned(owner, id);
            if (found.isEmpty()) {
                return new OwnerChangeResult.NotFound();
            }
            ScheduledMessage current = found.get();
            OwnerOutcome outcome = op.apply(current);
            switch (outcome) {
                case OwnerOutcome.Changed changed -> {
                    Optional<OwnerChangeResult> written = readmitted ? writeRevision(current, changed.message())
                            : changes.replace(current, changed.message())
                                    ? Optional.of(new OwnerChangeResult.Done(changed.message())) : Optional.empty();
                    if (written.isPresent()) {
                        if (written.get() instanceof OwnerChangeResult.Done done
                                && done.message().state() instanceof ScheduleState.Scheduled) {
                            dueWork.dueAt(done.message().dueAt());
                        }
                        return written.get();
                    }
                }
                case OwnerOutcome.Unchanged unchanged -> {
                    return new OwnerChangeResult.Done(unchanged.message());
                }
                case OwnerOutcome.RevisionConflict conflict -> {
                    return new OwnerChangeResult.RevisionConflict(conflict.current());
                }
                case OwnerOutcome.Refused refused -> {
                    return new OwnerChangeResult.StateConflict(refused.refusal(),
                            stateConflictMessage(refused.refusal(), current));
                }
            }
        }
        return new OwnerChangeResult.Unavailable("message " + id
                + " kept changing under concurrent writers; try again");
    }

    /** Writes a re-admitted revision; empty on a lost race (the caller reads again). */
    private Optional<OwnerChangeResult> writeRevision(ScheduledMessage current, ScheduledMessage next) {
        return switch (changes.replaceRevision(current, next, settings.limits())) {
            case ReviseResult.Replaced replaced -> Optional.of(new OwnerChangeResult.Done(next));
            case ReviseResult.Lost lost -> Optional.empty();
            case ReviseResult.ChannelDeleted deleted -> Optional.of(new OwnerChangeResult.Refused(
                    new Refusal(RefusalCode.CHANNEL_NOT_FOUND, "channel " + next.channel() + " was deleted")));
            case ReviseResult.ChannelWindowFull full -> Optional.of(new OwnerChangeResult.Refused(
                    windowFull(next.channel(), full.scope(), full.limit(), full.windowStart())));
        };
    }

    /** The {@code restricted_too_many} refusal for a full channel window, saying whose count is full. */
    private Refusal windowFull(Channel channel, WindowScope scope, int limit, Instant windowStart) {
        String window = " due in the " + settings.limits().channelWindow().toMinutes() + "-minute window starting "
                + windowStart.getEpochSecond();
        return new Refusal(RefusalCode.RESTRICTED_TOO_MANY, scope == WindowScope.OWNER
                ? "you already have " + limit + " messages in channel " + channel + window
                + "; choose another time"
                : "channel " + channel + " already has " + limit + " messages from all owners" + window
                + "; choose another time");
    }

    private String stateConflictMessage(buzz.scheduled.domain.schedule.OwnerRefusal refusal,
                                        ScheduledMessage current) {
        return switch (refusal) {
            case DISPATCHING -> "message " + current.id() + " is being sent to the relay right now";
            case NOT_PENDING -> "message " + current.id() + " is " + current.state().wireName()
                    + " and can no longer change";
            case ALREADY_SENT -> "message " + current.id() + " was already published";
            case RESIGN_REQUIRED -> "the stored event's created_at is outside the relay's window of "
                    + "now (" + relay.window().toSeconds() + " s either way, " + relay.windowSource()
                    + "); send a newly signed event";
            // An operator's requeue only; no owner operation is refused with these.
            case NOT_FAILED -> "message " + current.id() + " did not fail";
            case EVENT_PURGED -> "message " + current.id() + "'s event was deleted";
        };
    }

    /** One access question of a batch: the owner asks for a channel and an event kind. */
    private record AccessQuestion(Channel channel, int kind) {
    }
}
