package buzz.scheduled.adapters.relay.nip29;

import buzz.scheduled.application.port.out.AccessPolicy;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;

/**
 * The {@code nip29} access policy ({@code BUZZ_ACCESS_POLICY=nip29}): decides from the relay-signed NIP-29 group
 * state that {@link GroupFeed} keeps current (kind 39000 metadata, 39001 admins, 39002 members). A member may
 * post; a non-member only in an open group ({@code not_in_channel} otherwise); archived is {@code is_archived};
 * an unknown or deleted group is {@code channel_not_found}. While the feed is not in sync with the relay the
 * answer is "unavailable" (admission answers {@code 503}, delivery retries); it never guesses. The kind does
 * not matter to NIP-29 membership.
 */
public final class Nip29AccessPolicy implements AccessPolicy {

    private final GroupFeed feed;

    /** A policy over {@code feed}'s state; start the feed for it to answer anything but "unavailable". */
    public Nip29AccessPolicy(GroupFeed feed) {
        if (feed == null) {
            throw new IllegalArgumentException("the nip29 policy needs the group feed");
        }
        this.feed = feed;
    }

    @Override
    public AccessDecision check(PublicKey owner, Channel channel, int kind) {
        return feed.directory().decide(owner, channel);
    }
}
