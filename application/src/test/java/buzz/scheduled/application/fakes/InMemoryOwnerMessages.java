package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.in.CancelMatchingUseCase.CancelMatchingResult;
import buzz.scheduled.application.port.in.CancelMatchingUseCase.Selection;
import buzz.scheduled.application.port.in.ListMessagesUseCase.Cursor;
import buzz.scheduled.application.port.in.ListMessagesUseCase.ListQuery;
import buzz.scheduled.application.port.in.ListMessagesUseCase.Page;
import buzz.scheduled.application.port.in.SeriesSummaryUseCase.SeriesSummary;
import buzz.scheduled.application.port.out.MessageAdmission;
import buzz.scheduled.application.port.out.MessageAdmission.WindowScope;
import buzz.scheduled.application.port.out.OwnerMessageChanges;
import buzz.scheduled.application.port.out.OwnerMessageQueries;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.OwnerOutcome;
import buzz.scheduled.domain.schedule.OwnerRefusal;
import buzz.scheduled.domain.schedule.Revision;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduleState;
import buzz.scheduled.domain.schedule.ScheduleState.Published;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.SeriesId;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The owner side's three storage ports in memory, for application tests. Its clock is a {@link SettableClock} standing
 * in for
 * the database clock. Every method is synchronized, which makes each one atomic like a transaction; the
 * {@link InMemoryDeliveryStore} works on the same rows under the same lock.
 */
public final class InMemoryOwnerMessages implements OwnerMessageQueries, MessageAdmission, OwnerMessageChanges {
    // Ids compare like PostgreSQL's uuid (unsigned bytes), which is the order of their canonical text;
    // java.util.UUID.compareTo compares signed longs and would disagree for ids from 8000... upward.
    private static final Comparator<ScheduledMessage> BY_DUE =
            Comparator.comparing(ScheduledMessage::dueAt).thenComparing(m -> m.id().toString());

    private final SettableClock clock;
    private final Map<ScheduleId, ScheduledMessage> rows = new LinkedHashMap<>();
    private final Map<IdempotencyKey, ScheduleId> keys = new HashMap<>();
    private final Map<ScheduleId, List<StoredRevision>> history = new HashMap<>();
    private final Set<Channel> tombstones = new HashSet<>();

    public InMemoryOwnerMessages(SettableClock clock) {
        this.clock = clock;
    }

    /** The store's clock. */
    public Instant now() {
        return clock.now();
    }

    @Override
    public synchronized CreateResult create(ScheduledMessage message, IdempotencyKey key, CreateLimits limits) {
        ScheduleId existingId = keys.get(key);
        if (existingId != null) {
            ScheduledMessage existing = rows.get(existingId);
            StoredRevision first = history.get(existingId).get(0);
            return first.eventId().equals(message.eventId())
                    ? new CreateResult.Replayed(existing)
                    : new CreateResult.IdempotencyConflict(existingId, first.eventId());
        }
        if (tombstones.contains(message.channel())) {
            return new CreateResult.ChannelDeleted();
        }
        long pending = rows.values().stream()
                .filter(m -> m.owner().equals(message.owner()) && !m.state().terminal()).count();
        if (pending >= limits.maxPendingPerOwner()) {
            return new CreateResult.TooManyPending(limits.maxPendingPerOwner());
        }
        Instant windowStart = limits.windowStart(message.dueAt());
        Optional<WindowScope> full = fullWindow(message, limits, windowStart);
        if (full.isPresent()) {
            return new CreateResult.ChannelWindowFull(limits.limit(full.get()), windowStart, full.get());
        }
        rows.put(message.id(), message);
        keys.put(key, message.id());
        history.computeIfAbsent(message.id(), id -> new ArrayList<>()).add(StoredRevision.of(message));
        return new CreateResult.Created(message);
    }

    /** Every entry in order under the store's lock, which makes the batch one transaction. */
    @Override
    public synchronized List<CreateResult> createBatch(List<BatchEntry> entries, CreateLimits limits) {
        List<CreateResult> results = new ArrayList<>(entries.size());
        for (BatchEntry entry : entries) {
            results.add(create(entry.message(), entry.key(), limits));
        }
        return results;
    }

    @Override
    public synchronized Optional<SeriesSummary> seriesSummary(PublicKey owner, SeriesId series) {
        List<ScheduledMessage> members = rows.values().stream()
                .filter(m -> m.owner().equals(owner) && m.series().equals(Optional.of(series))).toList();
        if (members.isEmpty()) {
            return Optional.empty();
        }
        List<Instant> due = members.stream().filter(m -> !m.state().terminal()).map(ScheduledMessage::dueAt)
                .sorted().toList();
        return Optional.of(new SeriesSummary(series, members.size(), due.size(), count(members, Published.class),
                count(members, ScheduleState.Cancelled.class), count(members, ScheduleState.Failed.class),
                due.stream().findFirst(), due.isEmpty() ? Optional.empty() : Optional.of(due.get(due.size() - 1))));
    }

    private static int count(List<ScheduledMessage> messages, Class<? extends ScheduleState> state) {
        return (int) messages.stream().filter(m -> state.isInstance(m.state())).count();
    }

    /** Each matching row through the domain's own cancel, written like {@link #replace}. */
    @Override
    public synchronized CancelMatchingResult.Cancelled cancelMatching(PublicKey owner, Selection selection) {
        int cancelled = 0;
        int sending = 0;
        for (ScheduledMessage message : List.copyOf(rows.values())) {
            if (!message.owner().equals(owner)
                    || !selection.matches(message.channel(), message.series(), message.dueAt())) {
                continue;
            }
            switch (message.cancel(clock.now())) {
                case OwnerOutcome.Changed changed -> {
                    replace(message, changed.message());
                    cancelled++;
                }
                case OwnerOutcome.Refused refused -> sending += refused.refusal() == OwnerRefusal.DISPATCHING ? 1 : 0;
                case OwnerOutcome.Unchanged unchanged -> {
                }
                case OwnerOutcome.RevisionConflict conflict -> throw new IllegalStateException(
                        "a cancel has no revision to conflict with");
            }
        }
        return new CancelMatchingResult.Cancelled(cancelled, sending);
    }

    @Override
    public synchronized Optional<ScheduledMessage> find(ScheduleId id) {
        return Optional.ofNullable(rows.get(id));
    }

    @Override
    public synchronized Page list(ListQuery query) {
        List<ScheduledMessage> matching = rows.values().stream()
                .filter(m -> m.owner().equals(query.owner()))
                .filter(m -> query.states().contains(m.state().wireName()))
                .filter(m -> query.channel().map(c -> c.equals(m.channel())).orElse(true))
                .filter(m -> query.series().map(series -> m.series().equals(Optional.of(series))).orElse(true))
                .filter(m -> query.after().map(c -> after(m, c)).orElse(true))
                .sorted(BY_DUE)
                .limit(query.limit() + 1L)
                .toList();
        int taken = Math.min(query.limit(), Page.fitting(matching.stream().map(InMemoryOwnerMessages::estimatedSize)
                .toList(), query.maxBytes()));
        if (taken == matching.size()) {
            return new Page(matching, Optional.empty());
        }
        List<ScheduledMessage> page = matching.subList(0, taken);
        ScheduledMessage last = page.get(page.size() - 1);
        return new Page(page, Optional.of(new Cursor(last.dueAt(), last.id())));
    }

    /** A list item's estimated size: its event's wire JSON in UTF-8 bytes plus the item overhead (as PostgreSQL). */
    private static long estimatedSize(ScheduledMessage m) {
        return m.event().map(e -> NostrEventJson.write(e).getBytes(StandardCharsets.UTF_8).length).orElse(0)
                + ListQuery.ITEM_OVERHEAD_BYTES;
    }

    private static boolean after(ScheduledMessage m, Cursor cursor) {
        int byDue = m.dueAt().compareTo(cursor.dueAt());
        return byDue > 0 || (byDue == 0 && m.id().toString().compareTo(cursor.id().toString()) > 0);
    }

    @Override
    public synchronized boolean replace(ScheduledMessage expected, ScheduledMessage next) {
        if (!expected.id().equals(next.id())) {
            throw new IllegalArgumentException("replace must keep the id");
        }
        ScheduledMessage stored = rows.get(expected.id());
        if (stored == null
                || !stored.state().wireName().equals(expected.state().wireName())
                || !Objects.equals(stored.token(), expected.token())
                || !stored.revision().equals(expected.revision())) {
            return false;
        }
        rows.put(next.id(), next);
        if (!next.revision().equals(expected.revision())) {
            history.get(next.id()).add(StoredRevision.of(next));
        }
        if (next.event().isEmpty()) {
            // Purged (cancel, terminal failure): as in PostgreSQL, no revision keeps its event either.
            history.computeIfPresent(next.id(), (id, revisions) -> new ArrayList<>(revisions.stream()
                    .map(r -> new StoredRevision(r.revision(), r.eventId(), Optional.empty())).toList()));
        }
        return true;
    }

    @Override
    public synchronized ReviseResult replaceRevision(ScheduledMessage expected, ScheduledMessage next,
                                                     CreateLimits limits) {
        if (tombstones.contains(next.channel())) {
            return new ReviseResult.ChannelDeleted();
        }
        Instant windowStart = limits.windowStart(next.dueAt());
        Optional<WindowScope> full = fullWindow(next, limits, windowStart);
        if (full.isPresent()) {
            return new ReviseResult.ChannelWindowFull(limits.limit(full.get()), windowStart, full.get());
        }
        if (!replace(expected, next)) {
            return new ReviseResult.Lost();
        }
        // Only the latest revisionsKept revisions keep their event; older ones keep number and event id.
        List<StoredRevision> revisions = history.get(next.id());
        for (int i = 0; i < revisions.size() - limits.revisionsKept(); i++) {
            StoredRevision old = revisions.get(i);
            revisions.set(i, new StoredRevision(old.revision(), old.eventId(), Optional.empty()));
        }
        return new ReviseResult.Replaced();
    }

    /** Which window limit {@code message} (not counting itself) would pass, if any: the owner's, then the channel's. */
    private Optional<WindowScope> fullWindow(ScheduledMessage message, CreateLimits limits, Instant windowStart) {
        Instant windowEnd = windowStart.plus(limits.channelWindow());
        List<ScheduledMessage> inWindow = rows.values().stream()
                .filter(m -> !m.id().equals(message.id()) && m.channel().equals(message.channel())
                        && !m.state().terminal() && !m.dueAt().isBefore(windowStart) && m.dueAt().isBefore(windowEnd))
                .toList();
        long owners = inWindow.stream().filter(m -> m.owner().equals(message.owner())).count();
        return limits.fullWindow(owners, inWindow.size());
    }

    /** One entry of the revision history: its number, event id and, unless dropped, its signed event. */
    private record StoredRevision(Revision revision, EventId eventId, Optional<NostrEvent> event) {
        static StoredRevision of(ScheduledMessage message) {
            return new StoredRevision(message.revision(), message.eventId(), message.event());
        }
    }

    /** The revisions of {@code id} that still hold their signed event, oldest first. */
    public synchronized List<Revision> revisionsWithEvent(ScheduleId id) {
        return history.getOrDefault(id, List.of()).stream().filter(r -> r.event().isPresent())
                .map(StoredRevision::revision).toList();
    }

    @Override
    public synchronized boolean channelDeleted(Channel channel) {
        return tombstones.contains(channel);
    }

    /** Marks {@code channel} deleted (a test's stand-in for the operator route). */
    public synchronized void addTombstone(Channel channel) {
        tombstones.add(channel);
    }

    /** The revisions stored for {@code id}, oldest first (revision history). */
    public synchronized List<Revision> revisions(ScheduleId id) {
        return history.getOrDefault(id, List.of()).stream().map(StoredRevision::revision).toList();
    }

    /** How many rows an owner has (test inspection). */
    public synchronized long count(PublicKey owner) {
        return rows.values().stream().filter(m -> m.owner().equals(owner)).count();
    }

    /** How many rows in all (test inspection). */
    public synchronized int size() {
        return rows.size();
    }

    /** A snapshot of every row in insertion order (read by {@link InMemoryChannelAdministration}). */
    public synchronized List<ScheduledMessage> rows() {
        return List.copyOf(rows.values());
    }

    /** Deletes a row with its revision history and idempotency keys (the in-memory purges). */
    public synchronized boolean delete(ScheduleId id) {
        keys.values().removeIf(id::equals);
        history.remove(id);
        return rows.remove(id) != null;
    }

    /** The row of {@code id}, or null (for {@link InMemoryDeliveryStore}, under this store's lock). */
    ScheduledMessage row(ScheduleId id) {
        return rows.get(id);
    }

    /** Writes a row back (for {@link InMemoryDeliveryStore}, under this store's lock). */
    void put(ScheduledMessage message) {
        rows.put(message.id(), message);
    }

    /** Whether {@code channel} has a tombstone (for {@link InMemoryDeliveryStore}, under this store's lock). */
    boolean tombstoned(Channel channel) {
        return tombstones.contains(channel);
    }

    /** Every row (for {@link InMemoryDeliveryStore}, under this store's lock). */
    Collection<ScheduledMessage> allRows() {
        return rows.values();
    }
}
