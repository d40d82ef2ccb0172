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
 * @param relayPubkey  the key whose signature group state events must carry ({@code BUZZ_RELAY_PUBKEY}); when empty
 *                     it is the {@code self} of the relay's NIP-11 document, read on every connect
 * @param pingInterval how often the feed's connection is pinged; no pong by the next ping counts as a lost relay
 *                     (a half-open TCP connection must not look like a live feed)
 * @param pageSize     events asked for per backlog page when the relay's NIP-11 document states no
 *                     {@code limitation.max_limit}; must not exceed what the relay returns for one filter, because a
 *                     page that comes back short is taken as the end of the backlog
 */
public record Nip29Settings(RelaySettings relay, Optional<PublicKey> relayPubkey, Duration pingInterval,
                            int pageSize) {
    /** Default ping interval: 30 s. */
    public static final Duration DEFAULT_PING_INTERVAL = Duration.ofSeconds(30);
    /**
     * Default backlog page size: 100 events, below every per-filter cap of common relays (strfry returns at most
     * 500 per filter without saying so), so a short page really is the end.
     */
    public static final int DEFAULT_PAGE_SIZE = 100;
    /** Largest page asked for even when the relay's {@code max_limit} is higher. */
    public static final int MAX_PAGE_SIZE = 5_000;

    public Nip29Settings {
        if (relay == null || relayPubkey == null) {
            throw new IllegalArgumentException("NIP-29 settings need relay settings and a relay pubkey option");
        }
        if (pingInterval == null || pingInterval.isNegative() || pingInterval.isZero()) {
            throw new IllegalArgumentException("NIP-29 ping interval must be positive, got " + pingInterval);
        }
        if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
            throw new IllegalArgumentException("NIP-29 backlog page size must be 1.." + MAX_PAGE_SIZE + ", got "
                    + pageSize);
        }
    }

    /** Settings with the default page size. */
    public Nip29Settings(RelaySettings relay, Optional<PublicKey> relayPubkey, Duration pingInterval) {
        this(relay, relayPubkey, pingInterval, DEFAULT_PAGE_SIZE);
    }

    /** The relay's settings, the pubkey from configuration if given, the default ping interval and page size. */
    public static Nip29Settings of(RelaySettings relay, Optional<PublicKey> relayPubkey) {
        return new Nip29Settings(relay, relayPubkey, DEFAULT_PING_INTERVAL);
    }
}
