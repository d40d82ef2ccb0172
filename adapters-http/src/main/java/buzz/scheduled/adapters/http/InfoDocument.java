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
    /** The kind-5905 front door (docs/nostr.md). */
    static final String DVM_EXTENSION = "buzz-nip90-5905-v1";
    /** NIP-17 notices to owners (docs/nostr.md). */
    static final String NOTICES_EXTENSION = "buzz-nip17-notices-v1";

    /**
     * The Nostr-native features a server runs.
     *
     * @param dvm     the kind-5905 front door ({@code BUZZ_DVM})
     * @param notices NIP-17 notices ({@code BUZZ_NOTICES})
     */
    record NostrFeatures(boolean dvm, boolean notices) {
        static final NostrFeatures NONE = new NostrFeatures(false, false);
    }

    private InfoDocument() {
    }

    /**
     * @param relayContentLimit the relay's NIP-11 {@code max_content_length} when it states one: the advertised
     *                          {@code max_content_bytes} is the smaller of it and the configured limit
     */
    static Map<String, Object> of(HttpSettings settings, ServerIdentity identity, OptionalInt relayContentLimit) {
        return of(settings, identity, relayContentLimit, NostrFeatures.NONE);
    }

    /**
     * With the feature on, also the NIPs the server speaks ({@code supported_nips}: 11 and 98, with the front door 9,
     * 44, 89 and 90, with notices 17, 44 and 59) and each feature's extension name.
     */
    static Map<String, Object> of(HttpSettings settings, ServerIdentity identity, OptionalInt relayContentLimit,
                                  NostrFeatures features) {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("name", "buzz-scheduled-delivery");
        info.put("description", "Durable scheduled delivery of signed Nostr events for a chat relay.");
        identity.pubkey().ifPresent(pubkey -> info.put("pubkey", pubkey.hex()));
        info.put("software", identity.software().toString());
        info.put("version", identity.version());
        if (settings.scheduledMessages()) {
            java.util.SortedSet<Integer> nips = new java.util.TreeSet<>(List.of(11, 98));
            List<String> extensions = new java.util.ArrayList<>(List.of(EXTENSION));
            if (features.dvm()) {
                nips.addAll(List.of(9, 44, 89, 90));
                extensions.add(DVM_EXTENSION);
            }
            if (features.notices()) {
                nips.addAll(List.of(17, 44, 59));
                extensions.add(NOTICES_EXTENSION);
            }
            info.put("supported_nips", List.copyOf(nips));
            info.put("supported_extensions", List.copyOf(extensions));
            Map<String, Object> limitation = new LinkedHashMap<>();
            limitation.put("max_schedule_horizon_seconds", settings.horizon().toSeconds());
            limitation.put("max_content_bytes", relayContentLimit.isPresent()
                    ? Math.min(settings.maxContentBytes(), relayContentLimit.getAsInt()) : settings.maxContentBytes());
            limitation.put("max_pending_per_owner", settings.maxPendingPerOwner());
            OwnerApiLimits owner = settings.ownerLimits();
            limitation.put("max_event_bytes", owner.maxEventBytes());
            limitation.put("max_event_tags", owner.maxEventTags());
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
}
