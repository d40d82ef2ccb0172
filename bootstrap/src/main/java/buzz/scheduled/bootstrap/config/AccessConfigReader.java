package buzz.scheduled.bootstrap.config;

import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_ACCESS_POLICY;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_ACCESS_URL;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_NIP29_PAGE_SIZE;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_RELAY_PUBKEY;
import static buzz.scheduled.bootstrap.config.SidecarConfig.RELAY_OPERATOR_PUBKEYS;

import buzz.scheduled.bootstrap.config.SidecarConfig.Access;
import buzz.scheduled.bootstrap.config.SidecarConfig.AccessPolicyChoice;
import buzz.scheduled.domain.nostr.Nip19;
import buzz.scheduled.domain.nostr.PublicKey;
import java.net.URI;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Reads who may use the operator routes and which access policy decides channel access (README.md "Configuration").
 * Part of {@link SidecarConfig#fromEnvironment}.
 */
final class AccessConfigReader {
    private AccessConfigReader() {
    }

    /**
     * {@code RELAY_OPERATOR_PUBKEYS}, {@code BUZZ_ACCESS_POLICY} with {@code BUZZ_ACCESS_URL},
     * {@code BUZZ_RELAY_PUBKEY} and {@code BUZZ_NIP29_PAGE_SIZE}.
     */
    static Access access(EnvironmentReader env) {
        Set<PublicKey> operators = operatorKeys(env);
        AccessPolicyChoice policy = AccessPolicyChoice.parse(env.text(BUZZ_ACCESS_POLICY, "relay"));
        Optional<URI> accessUrl = env.text(BUZZ_ACCESS_URL)
                .map(url -> env.uri(BUZZ_ACCESS_URL, url, Set.of("http", "https"), "an absolute http(s) URL"));
        if (policy == AccessPolicyChoice.HTTP && accessUrl.isEmpty()) {
            throw new InvalidConfigurationException(BUZZ_ACCESS_URL, BUZZ_ACCESS_URL
                    + " must be set when " + BUZZ_ACCESS_POLICY + "=http (the URL the access callback is sent to)");
        }
        Optional<PublicKey> relayPubkey = env.text(BUZZ_RELAY_PUBKEY).map(hex -> {
            try {
                return new PublicKey(hex);
            } catch (IllegalArgumentException e) {
                throw new InvalidConfigurationException(BUZZ_RELAY_PUBKEY, BUZZ_RELAY_PUBKEY
                        + " must be the relay's pubkey, 64 lowercase hex characters, got '" + hex + "'");
            }
        });
        int nip29PageSize = (int) env.integer(BUZZ_NIP29_PAGE_SIZE, 100, 1, 5_000, "events");
        return new Access(operators, policy, accessUrl, relayPubkey, nip29PageSize);
    }

    private static Set<PublicKey> operatorKeys(EnvironmentReader env) {
        Set<PublicKey> keys = new LinkedHashSet<>();
        for (String item : env.text(RELAY_OPERATOR_PUBKEYS, "").split(",")) {
            String key = item.strip();
            if (key.isEmpty()) {
                continue;
            }
            try {
                // NIP-19: people copy keys as npub; the wire and the routes compare hex.
                keys.add(key.regionMatches(true, 0, Nip19.NPUB + "1", 0, 5) ? Nip19.publicKey(key)
                        : new PublicKey(key));
            } catch (IllegalArgumentException e) {
                throw new InvalidConfigurationException(RELAY_OPERATOR_PUBKEYS, RELAY_OPERATOR_PUBKEYS
                        + " must be comma-separated pubkeys, each 64 lowercase hex characters or an npub1...; '" + key
                        + "' is not one (" + e.getMessage() + ")");
            }
        }
        return Set.copyOf(keys);
    }
}
