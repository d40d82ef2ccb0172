package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.nostr.PublicKey;

/**
 * Sends a private direct message from the sidecar's key (NIP-17: a kind-14 rumor sealed in kind 13 and gift-wrapped in
 * kind 1059, NIP-59) to the recipient's NIP-17 inbox relays (their kind 10050) when they published them, else to the
 * sidecar's relay. Never throws for relay trouble.
 */
public interface DirectMessages {

    /**
     * Sends {@code text} to {@code recipient} and waits for a relay's answer.
     *
     * @return {@link NostrDelivery.Delivered} with the gift wrap's id when at least one relay took it
     */
    NostrDelivery send(PublicKey recipient, String text);
}
