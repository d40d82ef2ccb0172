package buzz.scheduled.adapters.relay.nip29;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import java.util.Optional;
import java.util.Set;

/**
 * What the relay says about one NIP-29 group, from the latest relay-signed state events.
 *
 * @param id        the group id (the {@code d} tag of the state events, the {@code h} tag of posts)
 * @param metadata  from kind 39000, once seen
 * @param admins    from kind 39001 ({@code p} tags), once seen
 * @param members   from kind 39002 ({@code p} tags), once seen
 * @param deletedAt when a kind 9008 delete-group the feed accepted was made, if any (deletion is final)
 */
record GroupState(String id, Optional<Metadata> metadata, Optional<Roster> admins, Optional<Roster> members,
                  Optional<Long> deletedAt) {

    GroupState {
        if (id == null || id.isEmpty()) {
            throw new IllegalArgumentException("a group needs an id");
        }
        if (metadata == null || admins == null || members == null || deletedAt == null) {
            throw new IllegalArgumentException("group " + id + ": state parts must be present or empty, not null");
        }
    }

    /** A group nothing is known about yet. */
    static GroupState unknown(String id) {
        return new GroupState(id, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
    }

    /**
     * Kind 39000 flags (NIP-29): {@code private} (only members read), {@code closed} (join requests ignored),
     * {@code restricted} (only members write); {@code archived} where the relay marks an archived group.
     *
     * @param version the event that said so, for NIP-01 replaceable ordering
     */
    record Metadata(boolean isPrivate, boolean closed, boolean restricted, boolean archived, Version version) {
        /**
         * Whether a non-member may post: only in an open group (neither closed, private nor restricted).
         * Closed is read that way because a relay like Buzz refuses posts from outside a group nobody can join.
         */
        boolean openToNonMembers() {
            return !isPrivate && !closed && !restricted;
        }
    }

    /** A kind 39001/39002 pubkey list. */
    record Roster(Set<PublicKey> pubkeys, Version version) {
        Roster {
            pubkeys = Set.copyOf(pubkeys);
        }
    }

    /**
     * Which replaceable event a part came from: a newer {@code created_at} wins, and on a tie the lower id
     * (NIP-01).
     */
    record Version(long createdAt, EventId eventId) {
        boolean supersedes(Version other) {
            return createdAt > other.createdAt
                    || (createdAt == other.createdAt && eventId.hex().compareTo(other.eventId.hex()) < 0);
        }
    }

    GroupState withMetadata(Metadata next) {
        return new GroupState(id, Optional.of(next), admins, members, deletedAt);
    }

    GroupState withAdmins(Roster next) {
        return new GroupState(id, metadata, Optional.of(next), members, deletedAt);
    }

    GroupState withMembers(Roster next) {
        return new GroupState(id, metadata, admins, Optional.of(next), deletedAt);
    }

    GroupState deleted(long at) {
        return new GroupState(id, metadata, admins, members,
                Optional.of(deletedAt.map(known -> Math.min(known, at)).orElse(at)));
    }

    /** Whether {@code pubkey} belongs to the group: a listed member or admin. */
    boolean isMember(PublicKey pubkey) {
        return members.map(r -> r.pubkeys().contains(pubkey)).orElse(false)
                || admins.map(r -> r.pubkeys().contains(pubkey)).orElse(false);
    }

    boolean isAdmin(PublicKey pubkey) {
        return admins.map(r -> r.pubkeys().contains(pubkey)).orElse(false);
    }
}
