package buzz.scheduled.adapters.http;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The NIP-11 style document of {@code GET /v1/info} (and {@code GET /} with
 * {@code Accept: application/nostr+json}). With the feature on it lists {@value #EXTENSION} in
 * {@code supported_extensions} and the limits in {@code limitation}; with it off it advertises nothing
 * (docs/openapi.yaml {@code getInfo}): an empty {@code supported_extensions} and no {@code limitation}. Always:
 * {@code software} (the project's URL), {@code version} and {@code pubkey} (the sidecar's own key, NIP-11's contact
 * key), see {@link ServerIdentity}.
 */
final class InfoDocument {
    /** The draft feature's name (docs/openapi.yaml {@code getInfo}). */
    static final String EXTENSION = "buzz-scheduled-messages-v1";

    private InfoDocument() {
    }

    /**
     * @param relay what the relay's NIP-11 limitation states: the advertised {@code max_content_bytes} and
     *              {@code max_event_tags} are the smaller of the relay's and the server's own, and the relay's
     *              {@code max_message_length} and {@code min_pow_difficulty} are advertised when it states them
     */
    static Map<String, Object> of(HttpSettings settings, ServerIdentity identity, RelayStatedLimits relay) {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("name", "buzz-scheduled-delivery");
        info.put("description", "Durable scheduled delivery of signed Nostr events for a chat relay.");
        identity.pubkey().ifPresent(pubkey -> info.put("pubkey", pubkey.hex()));
        info.put("software", identity.software().toString());
        info.put("version", identity.version());
        if (settings.scheduledMessages()) {
            info.put("supported_extensions", List.of(EXTENSION));
            Map<String, Object> limitation = new LinkedHashMap<>();
            limitation.put("max_schedule_horizon_seconds", settings.horizon().toSeconds());
            limitation.put("max_content_bytes", smaller(settings.maxContentBytes(), relay.maxContentLength()));
            limitation.put("max_pending_per_owner", settings.maxPendingPerOwner());
            OwnerApiLimits owner = settings.ownerLimits();
            limitation.put("max_event_bytes", owner.maxEventBytes());
            limitation.put("max_event_tags", smaller(owner.maxEventTags(), relay.maxEventTags()));
            relay.maxMessageLength().ifPresent(bytes -> limitation.put("max_message_length", bytes));
            relay.minPowDifficulty().ifPresent(bits -> limitation.put("min_pow_difficulty", bits));
            limitation.put("owner_writes_per_minute", owner.writesPerMinute());
            limitation.put("owner_write_burst", owner.writeBurst());
            limitation.put("channel_window_seconds", owner.channelWindow().toSeconds());
            limitation.put("max_per_owner_channel_window", owner.channelWindowPerOwner());
            limitation.put("max_per_channel_window", owner.channelWindowTotal());
            limitation.put("auth_required", true);
            info.put("limitation", limitation);
        } else {
            info.put("supported_extensions", List.of());
        }
        return info;
    }

    private static int smaller(int own, OptionalInt relay) {
        return relay.isPresent() ? Math.min(own, relay.getAsInt()) : own;
    }
}
