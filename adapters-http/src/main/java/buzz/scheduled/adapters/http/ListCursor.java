package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.ListMessagesUseCase.Cursor;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The opaque {@code cursor} of {@code GET /v1/scheduled-messages}: base64url (no padding) of
 * {@code v1:<due seconds>:<due nanos>:<id>:<check>}, where {@code check} is the first 8 bytes of a SHA-256 over the
 * rest. The check makes an edited cursor fail loudly ({@code 400 invalid_request}) instead of silently skipping
 * items; it is not a secret (a cursor only names a position in the caller's own list).
 */
final class ListCursor {
    /** 9999-12-31T23:59:59Z: no due time lies beyond it. */
    private static final long MAX_DUE_SECONDS = 253_402_300_799L;
    private static final Pattern PAYLOAD =
            Pattern.compile("v1:(0|[1-9][0-9]{0,18}):(0|[1-9][0-9]{0,8}):([0-9a-f-]{36}):([0-9a-f]{16})");
    /** Longest cursor text accepted before decoding. */
    static final int MAX_LENGTH = 256;

    private ListCursor() {
    }

    /** The cursor text for a position. */
    static String encode(Cursor cursor) {
        return encode(cursor.dueAt(), cursor.id());
    }

    /** The cursor text for the position (due time, id). */
    static String encode(Instant dueAt, ScheduleId id) {
        String body = "v1:" + dueAt.getEpochSecond() + ":" + dueAt.getNano() + ":" + id;
        String text = body + ":" + check(body);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
    }

    /** The position a cursor names, or empty when it is not one this server wrote. */
    static Optional<Cursor> decode(String text) {
        if (text == null || text.isEmpty() || text.length() > MAX_LENGTH) {
            return Optional.empty();
        }
        byte[] raw;
        try {
            raw = Base64.getUrlDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        // Base64 decoding ignores some trailing bits; re-encoding must give the same text back.
        if (!Base64.getUrlEncoder().withoutPadding().encodeToString(raw).equals(text)) {
            return Optional.empty();
        }
        String payload = new String(raw, StandardCharsets.US_ASCII);
        Matcher matcher = PAYLOAD.matcher(payload);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        String body = payload.substring(0, payload.lastIndexOf(':'));
        if (!MessageDigest.isEqual(check(body).getBytes(StandardCharsets.US_ASCII),
                matcher.group(4).getBytes(StandardCharsets.US_ASCII))) {
            return Optional.empty();
        }
        try {
            long seconds = Long.parseLong(matcher.group(1));
            if (seconds < 0 || seconds > MAX_DUE_SECONDS) {
                return Optional.empty(); // outside what a due time can be (and what PostgreSQL can compare)
            }
            Instant dueAt = Instant.ofEpochSecond(seconds, Long.parseLong(matcher.group(2)));
            return Optional.of(new Cursor(dueAt, ScheduleId.parse(matcher.group(3))));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private static String check(String body) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(("buzz-list-cursor|" + body).getBytes(StandardCharsets.US_ASCII));
            return Hex.encode(Arrays.copyOf(digest, 8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
