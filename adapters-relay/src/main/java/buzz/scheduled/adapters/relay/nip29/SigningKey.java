package buzz.scheduled.adapters.relay.nip29;

import buzz.scheduled.domain.nostr.PublicKey;

/**
 * The key whose group state the feed follows.
 *
 * @param pubkey    the key the relay's group state must be signed with
 * @param source    where it comes from, for log lines
 * @param confirmed whether the relay's NIP-11 {@code self} names it (then an empty backlog means no groups)
 */
record SigningKey(PublicKey pubkey, String source, boolean confirmed) {
}
