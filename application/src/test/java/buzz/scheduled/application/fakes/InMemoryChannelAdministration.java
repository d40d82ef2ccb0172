package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.in.DeleteChannelUseCase.ChannelDeleted;
import buzz.scheduled.application.port.in.RemoveMemberUseCase.MemberRemoved;
import buzz.scheduled.application.port.in.ReservationsUseCase.Reservations;
import buzz.scheduled.application.port.out.ChannelAdministration;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.FailureReason;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import buzz.scheduled.domain.schedule.Transition;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The channel administration port over an {@link InMemoryOwnerMessages}. Each method holds the store's monitor
 * (its methods are synchronized on it), which makes it atomic like the PostgreSQL transaction it stands for. A
 * revocation is {@link Transition#REVOKE}'s row of the table ({@link TableMoves}).
 */
public final class InMemoryChannelAdministration implements ChannelAdministration {

    private final InMemoryOwnerMessages store;

    public InMemoryChannelAdministration(InMemoryOwnerMessages store) {
        this.store = store;
    }

    @Override
    public ChannelDeleted deleteChannel(Channel channel) {
        synchronized (store) {
            boolean newlyDeleted = !store.channelDeleted(channel);
            store.addTombstone(channel);
            Instant now = store.now();
            int failed = 0;
            int purged = 0;
            int inFlight = 0;
            for (ScheduledMessage message : store.rows()) {
                if (!message.channel().equals(channel)) {
                    continue;
                }
                Optional<ScheduledMessage> revoked = revoke(message, FailureReason.CHANNEL_DELETED, now);
                if (revoked.isPresent()) {
                    replaceOrThrow(message, revoked.get());
                    failed++;
                    purged++;
                } else if (inFlight(message)) {
                    inFlight++;
                } else if (message.event().isPresent()) {
                    replaceOrThrow(message, withoutPayload(message));
                    purged++;
                }
            }
            return new ChannelDeleted(failed, purged, inFlight, newlyDeleted);
        }
    }

    @Override
    public MemberRemoved removeMember(Channel channel, PublicKey member) {
        synchronized (store) {
            Instant now = store.now();
            int failed = 0;
            int inFlight = 0;
            for (ScheduledMessage message : store.rows()) {
                if (!message.channel().equals(channel) || !message.owner().equals(member)) {
                    continue;
                }
                Optional<ScheduledMessage> revoked = revoke(message, FailureReason.MEMBER_REMOVED, now);
                if (revoked.isPresent()) {
                    replaceOrThrow(message, revoked.get());
                    failed++;
                } else if (inFlight(message)) {
                    inFlight++;
                }
            }
            return new MemberRemoved(failed, inFlight);
        }
    }

    @Override
    public int purgeOwner(PublicKey owner) {
        synchronized (store) {
            int deleted = 0;
            for (ScheduledMessage message : store.rows()) {
                if (message.owner().equals(owner) && store.delete(message.id())) {
                    deleted++;
                }
            }
            return deleted;
        }
    }

    @Override
    public int purgeAll() {
        synchronized (store) {
            int deleted = 0;
            for (ScheduledMessage message : store.rows()) {
                if (store.delete(message.id())) {
                    deleted++;
                }
            }
            return deleted;
        }
    }

    @Override
    public int pruneTerminal(Duration olderThan, int batch) {
        if (olderThan == null || olderThan.isNegative() || batch < 1) {
            throw new IllegalArgumentException("prune needs a retention ≥ 0 and a batch ≥ 1");
        }
        synchronized (store) {
            Instant cutoff = store.now().minus(olderThan);
            List<ScheduledMessage> old = store.rows().stream()
                    .filter(m -> m.state().terminal() && m.updatedAt().isBefore(cutoff))
                    .sorted(Comparator.comparing(ScheduledMessage::updatedAt))
                    .limit(batch)
                    .toList();
            old.forEach(m -> store.delete(m.id()));
            return old.size();
        }
    }

    @Override
    public Reservations reservations() {
        synchronized (store) {
            Instant now = store.now();
            List<ScheduledMessage> pending = store.rows().stream().filter(m -> !m.state().terminal()).toList();
            List<ScheduledMessage> due = pending.stream().filter(m -> !m.dueAt().isAfter(now)).toList();
            Optional<Instant> heldBefore = due.stream().map(InMemoryChannelAdministration::landsFrom)
                    .min(Comparator.naturalOrder());
            Optional<Instant> nextDue = pending.stream().map(ScheduledMessage::dueAt).filter(d -> d.isAfter(now))
                    .min(Comparator.naturalOrder());
            return new Reservations(heldBefore, due.size(), nextDue, now);
        }
    }

    /** The earliest instant the message's event may land at in the relay's timeline. */
    private static Instant landsFrom(ScheduledMessage m) {
        Instant signed = Instant.ofEpochSecond(m.event().orElseThrow().createdAt());
        return signed.isBefore(m.dueAt()) ? signed : m.dueAt();
    }

    private static Optional<ScheduledMessage> revoke(ScheduledMessage message, FailureReason reason, Instant now) {
        return TableMoves.move(message, Transition.REVOKE, TableMoves.nothing().withReason(reason), now);
    }

    /** Pending but not revocable: left to its claim's fenced finishing write. */
    private static boolean inFlight(ScheduledMessage message) {
        return !message.state().terminal();
    }

    private void replaceOrThrow(ScheduledMessage expected, ScheduledMessage next) {
        if (!store.replace(expected, next)) {
            throw new IllegalStateException("row " + expected.id() + " changed while the store was locked");
        }
    }

    private static ScheduledMessage withoutPayload(ScheduledMessage m) {
        return new ScheduledMessage(m.id(), m.owner(), m.channel(), m.revision(), m.eventId(), m.dueAt(),
                Optional.empty(), m.state(), m.attempts(), m.createdAt(), m.updatedAt(), m.series());
    }
}
