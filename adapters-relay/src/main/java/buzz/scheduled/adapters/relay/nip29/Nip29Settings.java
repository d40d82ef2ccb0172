package buzz.scheduled.adapters.relay.nip29;

import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.domain.nostr.PublicKey;
import java.time.Duration;
import java.util.Optional;

/**
 * How the {@code nip29} access policy follows the relay's group state.
 *
 * @param relay        the relay URL, handshake timeout and reconnect backoff (the same relay the sidecar publishes
 *                     to; the feed has its own connection)
 * @param relayPubkey  the relay's pubkey, whose signature group state events must carry; when empty it is read
 *                     from the relay's NIP-11 document ({@code pubkey}) on every connect
 * @param pingInterval how often an idle connection is pinged; no pong within the handshake timeout counts as a
 *                     lost relay (a half-open TCP connection must not look like a live feed)
 */
public record Nip29Settings(RelaySettings relay, Optional<PublicKey> relayPubkey, Duration pingInterval) {
    /** Default ping interval: 30 s. */
    public static final Duration DEFAULT_PING_INTERVAL = Duration.ofSeconds(30);

    public Nip29Settings {
        if (relay == null || relayPubkey == null) {
            throw new IllegalArgumentException("NIP-29 settings need relay settings and a relay pubkey option");
        }
        if (pingInterval == null || pingInterval.isNegative() || pingInterval.isZero()) {
            throw new IllegalArgumentException("NIP-29 ping interval must be positive, got " + pingInterval);
        }
    }

    /** The relay's settings, the pubkey from configuration if given, the default ping interval. */
    public static Nip29Settings of(RelaySettings relay, Optional<PublicKey> relayPubkey) {
        return new Nip29Settings(relay, relayPubkey, DEFAULT_PING_INTERVAL);
    }
}
