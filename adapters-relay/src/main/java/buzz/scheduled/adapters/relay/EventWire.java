package buzz.scheduled.adapters.relay;

import buzz.scheduled.domain.nostr.NostrEvent;

import java.util.List;

/**
 * Client-to-relay messages carrying an event (NIP-01 {@code EVENT}, NIP-42 {@code AUTH}). The event is written
 * field by field with the exact values it was signed with, strings escaped the way NIP-01's canonical form
 * (JavaScript's {@code JSON.stringify}) does, so the relay re-hashes to the same id.
 */
final class EventWire {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private EventWire() {
    }

    /** {@code ["EVENT", <event>]}. */
    static String eventMessage(NostrEvent event) {
        return envelope("EVENT", event);
    }

    /** {@code ["AUTH", <event>]} (NIP-42). */
    static String authMessage(NostrEvent event) {
        return envelope("AUTH", event);
    }

    private static String envelope(String type, NostrEvent event) {
        StringBuilder out = new StringBuilder(256 + event.content().length());
        out.append("[\"").append(type).append("\",");
        appendEvent(out, event);
        return out.append(']').toString();
    }

    /** The event object in NIP-01 field order: id, pubkey, created_at, kind, tags, content, sig. */
    static String eventJson(NostrEvent event) {
        StringBuilder out = new StringBuilder(256 + event.content().length());
        appendEvent(out, event);
        return out.toString();
    }

    private static void appendEvent(StringBuilder out, NostrEvent event) {
        out.append("{\"id\":\"").append(event.id().hex())
                .append("\",\"pubkey\":\"").append(event.pubkey().hex())
                .append("\",\"created_at\":").append(event.createdAt())
                .append(",\"kind\":").append(event.kind())
                .append(",\"tags\":[");
        List<List<String>> tags = event.tags();
        for (int t = 0; t < tags.size(); t++) {
            if (t > 0) {
                out.append(',');
            }
            out.append('[');
            List<String> tag = tags.get(t);
            for (int v = 0; v < tag.size(); v++) {
                if (v > 0) {
                    out.append(',');
                }
                appendString(out, tag.get(v));
            }
            out.append(']');
        }
        out.append("],\"content\":");
        appendString(out, event.content());
        out.append(",\"sig\":\"").append(event.sig().hex()).append("\"}");
    }

    private static void appendString(StringBuilder out, String value) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\f' -> out.append("\\f");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
