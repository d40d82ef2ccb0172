package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.RefusalCode;

/**
 * Decides whether an owner may post an event of a kind in a channel, at admission and again right before
 * delivery (docs/scheduled-messages.md §7). Chosen by {@code BUZZ_ACCESS_POLICY}.
 */
public interface AccessPolicy {

    /** Asks about {@code owner} posting {@code kind} in {@code channel}; never throws for a denial. */
    AccessDecision check(PublicKey owner, Channel channel, int kind);

    /**
     * Whether delivery must ask {@link #check} again right before publishing. A policy that always allows and leaves
     * the decision to the relay's own answer says no, and delivery skips the question (and reading the event's kind).
     */
    default boolean checksBeforeDelivery() {
        return true;
    }

    /** The policy's answer. */
    sealed interface AccessDecision {
        /** Allowed. */
        record Allowed() implements AccessDecision {
        }

        /** Denied; {@code code} is one of channel_not_found, is_archived, not_in_channel, restricted. */
        record Denied(RefusalCode code, String message) implements AccessDecision {
        }

        /** The policy cannot answer now (its source is unreachable); never guess. */
        record Unavailable(String message) implements AccessDecision {
        }
    }
}
