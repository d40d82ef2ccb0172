package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.AuthenticateRequestUseCase;
import buzz.scheduled.application.port.in.AuthenticationResult;
import buzz.scheduled.application.port.in.AuthenticationResult.Authenticated;
import buzz.scheduled.application.port.in.AuthenticationResult.Refused;
import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.application.port.out.ReplayStore;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.NostrEventJson;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;

/**
 * NIP-98 HTTP authentication: decodes the {@code Authorization: Nostr <base64>} header (padding optional), reads
 * the event strictly, and accepts it when, in this order: kind is 27235; {@code created_at} is within the window
 * (default 60 s) of the clock either way; the one {@code u} tag names the request URL; the one {@code method} tag
 * names the request method; there is at most one {@code payload} tag; the signature port says the event is
 * authentic (all of these before the body is read, {@link #checkHeader}); then the {@code payload} tag, when
 * present, is the hex SHA-256 of the raw body, and this header's signature was not accepted before (the replay
 * guard, a {@link ReplayStore}: shared by all nodes and kept across restarts in production; {@link #checkBody}).
 * Each refusal names the check that failed.
 *
 * <p>As real clients behave (nostr-tools' {@code nip98.getToken}): the URL comparison normalises both sides per
 * RFC 3986 §6.2.2/§6.2.3 (scheme and host case, percent-encoding case, default port, empty path; see
 * {@link RequestUrl}), so {@code PUBLIC_BASE_URL=https://Sched.Example.COM:443} matches a tag
 * {@code https://sched.example.com/...}; the method and the payload hex compare ASCII case-insensitively
 * ({@code post} is {@code POST}); and the replay guard is keyed by the BIP-340 signature, so the same request signed
 * twice in one second (same event id, fresh signature) passes twice while a repeated header does not.
 */
public final class AuthenticateRequestService implements AuthenticateRequestUseCase {

    /** NIP-98 HTTP Auth event kind. */
    public static final int HTTP_AUTH_KIND = 27235;

    /** Default allowed distance between created_at and the server clock. */
    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(60);

    /** Default number of recently used authentication signatures remembered. */
    public static final int DEFAULT_REPLAY_CAPACITY = 100_000;

    /** Longest header token accepted (characters of base64); real ones are well under 2 KiB. */
    static final int MAX_TOKEN_CHARS = 64 * 1024;

    private static final String SCHEME = "Nostr";

    private final EventSignatures signatures;
    private final WallClock clock;
    private final long windowSeconds;
    private final ReplayStore replays;

    /**
     * The service with the NIP-98 defaults (a 60-second window) and a replay guard in this process's memory
     * (100 000 signatures): for tests and single-node tools; production passes the shared store.
     */
    public AuthenticateRequestService(EventSignatures signatures, WallClock clock) {
        this(signatures, clock, DEFAULT_WINDOW, DEFAULT_REPLAY_CAPACITY);
    }

    /**
     * @param window          largest accepted |now − created_at|, whole seconds, positive
     * @param replayCapacity  most authentication signatures remembered at once (in this process's memory)
     */
    public AuthenticateRequestService(
            EventSignatures signatures, WallClock clock, Duration window, int replayCapacity) {
        this(signatures, clock, window, new InProcessReplayStore(replayCapacity, requireClock(clock)));
    }

    /**
     * @param window  largest accepted |now − created_at|, whole seconds, positive
     * @param replays where accepted headers are remembered: each signature is kept until
     *                {@code created_at + 2 × window + 1 s}, past the last moment the header could be accepted
     *                by a node whose clock differs from the store's by up to one window
     */
    public AuthenticateRequestService(EventSignatures signatures, WallClock clock, Duration window,
                                      ReplayStore replays) {
        if (signatures == null || clock == null || window == null || replays == null) {
            throw new IllegalArgumentException("signatures, clock, window and replay store are required");
        }
        if (window.isNegative() || window.isZero() || window.toNanosPart() != 0) {
            throw new IllegalArgumentException("window must be a positive number of whole seconds, got " + window);
        }
        this.signatures = signatures;
        this.clock = clock;
        this.windowSeconds = window.toSeconds();
        this.replays = replays;
    }

    private static WallClock requireClock(WallClock clock) {
        if (clock == null) {
            throw new IllegalArgumentException("signatures, clock, window and replay store are required");
        }
        return clock;
    }

    @Override
    public HeaderCheck checkHeader(String method, String url, String header) {
        if (header == null || header.isBlank()) {
            return new HeaderCheck.Refused("Authorization header is missing");
        }
        String trimmed = header.strip();
        int space = trimmed.indexOf(' ');
        if (space < 0 || !trimmed.substring(0, space).equalsIgnoreCase(SCHEME)) {
            return new HeaderCheck.Refused("Authorization scheme must be Nostr (NIP-98)");
        }
        String token = trimmed.substring(space + 1).strip();
        if (token.isEmpty()) {
            return new HeaderCheck.Refused("Authorization token is missing after \"Nostr\"");
        }
        if (token.length() > MAX_TOKEN_CHARS) {
            return new HeaderCheck.Refused("Authorization token is longer than " + MAX_TOKEN_CHARS + " characters");
        }
        byte[] json;
        try {
            json = Base64.getDecoder().decode(token);
        } catch (IllegalArgumentException e) {
            return new HeaderCheck.Refused("Authorization token is not valid base64: " + e.getMessage());
        }
        NostrEvent event;
        switch (NostrEventJson.read(json)) {
            case NostrEventJson.Decoded.Malformed malformed -> {
                return new HeaderCheck.Refused("Authorization: Nostr must carry the base64 of a signed kind-27235 event's JSON"
                        + " (NIP-98); this one decodes to no such event: " + malformed.reason());
            }
            case NostrEventJson.Decoded.Event decoded -> event = decoded.event();
        }
        return check(event, method, url);
    }

    private HeaderCheck check(NostrEvent event, String method, String url) {
        if (event.kind() != HTTP_AUTH_KIND) {
            return new HeaderCheck.Refused("Authorization event kind must be " + HTTP_AUTH_KIND + " (NIP-98), got " + event.kind());
        }
        long nowSeconds = clock.now().getEpochSecond();
        if (event.createdAt() > nowSeconds + windowSeconds) {
            return new HeaderCheck.Refused("Authorization event is from the future: created_at is "
                    + (event.createdAt() - nowSeconds) + " s ahead of the server clock (limit " + windowSeconds + " s)");
        }
        if (event.createdAt() < nowSeconds - windowSeconds) {
            return new HeaderCheck.Refused("Authorization event is too old: created_at is "
                    + (nowSeconds - event.createdAt()) + " s behind the server clock (limit " + windowSeconds + " s)");
        }
        List<String> urls = event.tagValues("u");
        if (urls.size() != 1) {
            return new HeaderCheck.Refused(urls.isEmpty()
                    ? "Authorization event has no u tag"
                    : "Authorization event has " + urls.size() + " u tags, expected one");
        }
        if (!RequestUrl.normalized(urls.get(0)).equals(RequestUrl.normalized(url))) {
            return new HeaderCheck.Refused("Authorization u tag \"" + urls.get(0) + "\" does not match the URL of this request under PUBLIC_BASE_URL \""
                    + url + "\"");
        }
        List<String> methods = event.tagValues("method");
        if (methods.size() != 1) {
            return new HeaderCheck.Refused(methods.isEmpty()
                    ? "Authorization event has no method tag"
                    : "Authorization event has " + methods.size() + " method tags, expected one");
        }
        if (!RequestUrl.asciiLowercase(methods.get(0)).equals(RequestUrl.asciiLowercase(method))) {
            return new HeaderCheck.Refused("Authorization method tag \"" + methods.get(0)
                    + "\" does not match the request method \"" + method + "\"");
        }
        List<String> payloads = event.tagValues("payload");
        if (payloads.size() > 1) {
            return new HeaderCheck.Refused("Authorization event has " + payloads.size()
                    + " payload tags, expected at most one");
        }
        if (signatures.verify(event) instanceof EventSignatures.Verdict.Invalid invalid) {
            return new HeaderCheck.Refused("Authorization event signature is invalid: " + invalid.reason());
        }
        return new HeaderCheck.Verified(event);
    }

    @Override
    public AuthenticationResult checkBody(HeaderCheck.Verified header, byte[] body) {
        NostrEvent event = header.event();
        List<String> payloads = event.tagValues("payload");
        if (payloads.size() == 1 && !RequestUrl.asciiLowercase(payloads.get(0)).equals(sha256Hex(body))) {
            return new Refused("Authorization payload tag does not match the SHA-256 of the request body");
        }
        // Kept until the header can no longer be accepted (created_at + window, inclusive of its last second),
        // plus one more window for clock differences between the nodes sharing the store.
        Instant keepUntil = Instant.ofEpochSecond(event.createdAt()).plusSeconds(2 * windowSeconds + 1);
        if (!replays.firstUse(event.sig(), keepUntil)) {
            return new Refused("Authorization event " + event.id().hex() + " with this signature was already used"
                    + " (replay)");
        }
        return new Authenticated(event.pubkey());
    }

    private static String sha256Hex(byte[] body) {
        try {
            return Hex.encode(MessageDigest.getInstance("SHA-256").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
