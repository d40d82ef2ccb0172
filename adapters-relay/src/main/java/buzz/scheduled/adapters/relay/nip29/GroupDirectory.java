package buzz.scheduled.adapters.relay.nip29;

import buzz.scheduled.adapters.relay.nip29.GroupState.Metadata;
import buzz.scheduled.adapters.relay.nip29.GroupState.Roster;
import buzz.scheduled.adapters.relay.nip29.GroupState.Version;
import buzz.scheduled.application.port.out.AccessPolicy.AccessDecision;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.RefusalCode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The NIP-29 group state the relay publishes, cached in memory and kept current by {@link GroupFeed}: kind 39000
 * metadata, 39001 admins and 39002 members (signed by the relay), and the moderation events 9008 delete-group
 * and 9001 remove-user (signed by the relay or a group admin). Events reach it already signature-checked; this
 * class decides whose events count and what they mean. Thread-safe.
 *
 * <p>While the feed is not in sync with the relay (never connected, reconnecting, or before the first
 * {@code EOSE}) every decision is "unavailable": the policy never guesses from state that may be stale.
 */
final class GroupDirectory {

    /** Kind 39000: group metadata. */
    static final int METADATA = 39000;
    /** Kind 39001: group admins. */
    static final int ADMINS = 39001;
    /** Kind 39002: group members. */
    static final int MEMBERS = 39002;
    /** Kind 9001: remove-user. */
    static final int REMOVE_USER = 9001;
    /** Kind 9008: delete-group. */
    static final int DELETE_GROUP = 9008;

    private static final Pattern PUBKEY = Pattern.compile("[0-9a-f]{64}");

    private final Map<String, GroupState> groups = new HashMap<>();
    private PublicKey relay;
    private String unavailable = "the relay's group state has not been loaded yet";

    /** A moderation the directory accepted, for the feed to carry out on the store. */
    sealed interface Moderation {
        /** The group was deleted (9008). */
        record GroupDeleted(Channel channel) implements Moderation {
        }

        /** These pubkeys were removed from the group (9001) and are not listed as members by a newer roster. */
        record MembersRemoved(Channel channel, Set<PublicKey> members) implements Moderation {
            public MembersRemoved {
                members = Set.copyOf(members);
            }
        }
    }

    /** The relay's pubkey, whose signature the state events must carry. */
    synchronized void relayPubkey(PublicKey pubkey) {
        this.relay = pubkey;
    }

    /** The feed has received everything stored up to now ({@code EOSE}) and follows live events. */
    synchronized void synced() {
        unavailable = null;
    }

    /** The feed lost the relay (or has not reached it yet): decisions are unavailable until the next sync. */
    synchronized void unsynced(String why) {
        unavailable = why == null || why.isBlank() ? "the relay cannot be reached" : why;
    }

    /** Whether decisions can be made now. */
    synchronized boolean inSync() {
        return unavailable == null;
    }

    /**
     * Takes in a relay-signed state event (39000/39001/39002). Older replacements and events not signed by the
     * relay are ignored.
     *
     * @return whether it changed the state
     */
    synchronized boolean acceptState(NostrEvent event) {
        if (relay == null || !event.pubkey().equals(relay)) {
            return false;
        }
        Optional<String> group = event.firstTagValue("d").filter(id -> !id.isEmpty() && id.length() <= Channel.MAX_LENGTH);
        if (group.isEmpty()) {
            return false;
        }
        GroupState current = groups.getOrDefault(group.get(), GroupState.unknown(group.get()));
        Version version = new Version(event.createdAt(), event.id());
        GroupState next = switch (event.kind()) {
            case METADATA -> current.metadata().filter(m -> !version.supersedes(m.version())).isPresent() ? current
                    : current.withMetadata(new Metadata(hasTag(event, "private"), hasTag(event, "closed"),
                    hasTag(event, "restricted"), hasTag(event, "archived"), version));
            case ADMINS -> current.admins().filter(r -> !version.supersedes(r.version())).isPresent() ? current
                    : current.withAdmins(new Roster(pubkeys(event), version));
            case MEMBERS -> current.members().filter(r -> !version.supersedes(r.version())).isPresent() ? current
                    : current.withMembers(new Roster(pubkeys(event), version));
            default -> current;
        };
        if (next == current) {
            return false;
        }
        groups.put(next.id(), next);
        return true;
    }

    /**
     * Takes in a moderation event (9008 delete-group, 9001 remove-user) signed by the relay or by an admin of its
     * group (as the relay accepted it).
     *
     * <p>A removal that arrives live (after {@code EOSE}) is current: the relay just accepted it, and the member
     * list that follows will not list the member. A removal from the stored backlog may be old: it names only
     * pubkeys that the final member list does not list again at or after its time (a member removed and later
     * added back keeps their messages).
     *
     * @param live whether it arrived after {@code EOSE}
     * @return what to carry out, if anything
     */
    synchronized Optional<Moderation> acceptModeration(NostrEvent event, boolean live) {
        Optional<String> group = event.firstTagValue("h").filter(id -> !id.isEmpty() && id.length() <= Channel.MAX_LENGTH);
        if (group.isEmpty()) {
            return Optional.empty();
        }
        GroupState current = groups.getOrDefault(group.get(), GroupState.unknown(group.get()));
        boolean byRelay = relay != null && event.pubkey().equals(relay);
        if (!byRelay && !current.isAdmin(event.pubkey())) {
            return Optional.empty();
        }
        Channel channel = new Channel(group.get());
        if (event.kind() == DELETE_GROUP) {
            groups.put(current.id(), current.deleted(event.createdAt()));
            return Optional.of(new Moderation.GroupDeleted(channel));
        }
        if (event.kind() == REMOVE_USER) {
            Set<PublicKey> removed = new LinkedHashSet<>();
            for (String value : event.tagValues("p")) {
                if (!PUBKEY.matcher(value).matches()) {
                    continue;
                }
                PublicKey member = new PublicKey(value);
                boolean listedAgain = !live && current.members()
                        .filter(r -> r.version().createdAt() >= event.createdAt())
                        .map(r -> r.pubkeys().contains(member))
                        .orElse(false);
                if (!listedAgain) {
                    removed.add(member);
                }
            }
            return removed.isEmpty() ? Optional.empty()
                    : Optional.of(new Moderation.MembersRemoved(channel, removed));
        }
        return Optional.empty();
    }

    /**
     * The access decision for {@code owner} posting in {@code channel}: unavailable while out of sync; an unknown
     * or deleted group is {@code channel_not_found}; an archived one {@code is_archived}; a member (or admin) may
     * post; a non-member only in an open group, else {@code not_in_channel}.
     */
    synchronized AccessDecision decide(PublicKey owner, Channel channel) {
        if (unavailable != null) {
            return new AccessDecision.Unavailable(unavailable);
        }
        GroupState group = groups.get(channel.value());
        if (group == null || group.deletedAt().isPresent() || group.metadata().isEmpty()) {
            return new AccessDecision.Denied(RefusalCode.CHANNEL_NOT_FOUND,
                    "the relay has no group " + channel.value() + (group != null && group.deletedAt().isPresent()
                            ? " (it was deleted)" : ""));
        }
        Metadata metadata = group.metadata().get();
        if (metadata.archived()) {
            return new AccessDecision.Denied(RefusalCode.IS_ARCHIVED, "group " + channel.value() + " is archived");
        }
        if (group.isMember(owner) || metadata.openToNonMembers()) {
            return new AccessDecision.Allowed();
        }
        return new AccessDecision.Denied(RefusalCode.NOT_IN_CHANNEL,
                owner.hex() + " is not a member of group " + channel.value());
    }

    /** How many groups are known: with metadata and not deleted. */
    synchronized int groupCount() {
        return (int) groups.values().stream()
                .filter(g -> g.metadata().isPresent() && g.deletedAt().isEmpty())
                .count();
    }

    /** A snapshot of one group's state (tests, diagnostics). */
    synchronized Optional<GroupState> group(String id) {
        return Optional.ofNullable(groups.get(id));
    }

    private static boolean hasTag(NostrEvent event, String name) {
        return event.tags().stream().anyMatch(tag -> !tag.isEmpty() && tag.get(0).equals(name));
    }

    private static Set<PublicKey> pubkeys(NostrEvent event) {
        List<PublicKey> keys = new ArrayList<>();
        for (String value : event.tagValues("p")) {
            if (PUBKEY.matcher(value).matches()) {
                keys.add(new PublicKey(value));
            }
        }
        return new LinkedHashSet<>(keys);
    }
}
