package buzz.scheduled.adapters.http;

import buzz.scheduled.domain.nostr.Nip19;
import buzz.scheduled.domain.nostr.PublicKey;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A pubkey named in an operator route's path or query: 64 lowercase hex characters, or its NIP-19 {@code npub1…}
 * form (what Nostr clients show an operator).
 */
final class PubkeyParameter {
    /** What the refusal of a malformed value says the value may be. */
    static final String EXPECTED = "64 lowercase hex characters or an npub (NIP-19)";
    private static final Pattern HEX = Pattern.compile("[0-9a-f]{64}");

    private PubkeyParameter() {
    }

    /** The pubkey {@code value} names; empty when it is null, malformed or an npub of another length. */
    static Optional<PublicKey> parse(String value) {
        if (value == null) {
            return Optional.empty();
        }
        if (HEX.matcher(value).matches()) {
            return Optional.of(new PublicKey(value));
        }
        if (value.startsWith(Nip19.NPUB + "1")) {
            try {
                return Optional.of(Nip19.publicKey(value));
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }
}
