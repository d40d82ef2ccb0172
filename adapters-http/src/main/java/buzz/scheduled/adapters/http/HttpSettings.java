package buzz.scheduled.adapters.http;

import java.net.URI;
import java.time.Duration;

/**
 * What the HTTP API needs to know besides the use cases (README.md "Configuration", docs/openapi.yaml).
 *
 * @param scheduledMessages  {@code BUZZ_SCHEDULED_MESSAGES}: when false every owner route answers
 *                           {@code 404 feature_disabled} and {@code /v1/info} advertises nothing
 * @param publicBaseUrl      {@code PUBLIC_BASE_URL}: absolute {@code http}/{@code https} URL without query or
 *                           fragment; NIP-98 {@code u} tags must equal it + request path + query. A trailing
 *                           slash is dropped
 * @param horizon            how far ahead a due time may be (advertised in {@code limitation})
 * @param maxContentBytes    largest event content in UTF-8 bytes (advertised)
 * @param maxPendingPerOwner most non-terminal messages one owner may have (advertised)
 * @param maxBodyBytes       largest request body read; longer ones answer {@code 413 too_large} unread
 * @param maxHeaderBytes     largest request line + headers Jetty accepts; more answers {@code 431}
 * @param requestTimeout     how long one request may wait for the use cases (store, access policy) before it
 *                           answers {@code 503} with {@code Retry-After}
 * @param retryAfter         what {@code Retry-After} says on a {@code 503} (whole seconds, at least 1)
 * @param connections        connection caps and the header, body and idle timeouts
 * @param ownerLimits        the list page's byte budget and the owner limits {@code /v1/info} advertises
 */
public record HttpSettings(boolean scheduledMessages, URI publicBaseUrl, Duration horizon, int maxContentBytes,
                           int maxPendingPerOwner, int maxBodyBytes, int maxHeaderBytes, Duration requestTimeout,
                           Duration retryAfter, ConnectionLimits connections, OwnerApiLimits ownerLimits) {

    /** Room for the body envelope, tags and escapes beyond the content: 64 KiB. */
    public static final int ENVELOPE_BYTES = 64 * 1024;
    /** Default header limit: 16 KiB (a NIP-98 header with a large URL fits in well under 4 KiB). */
    public static final int DEFAULT_MAX_HEADER_BYTES = 16 * 1024;
    /** Default wait for the use cases: 10 s. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /** Default {@code Retry-After}: 2 s. */
    public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(2);

    public HttpSettings {
        if (publicBaseUrl == null) {
            throw new IllegalArgumentException("PUBLIC_BASE_URL is missing");
        }
        String scheme = publicBaseUrl.getScheme();
        if (!publicBaseUrl.isAbsolute() || !("http".equals(scheme) || "https".equals(scheme))
                || publicBaseUrl.getRawAuthority() == null) {
            throw new IllegalArgumentException("PUBLIC_BASE_URL must be an absolute http(s) URL, got " + publicBaseUrl);
        }
        if (publicBaseUrl.getRawQuery() != null || publicBaseUrl.getRawFragment() != null) {
            throw new IllegalArgumentException("PUBLIC_BASE_URL must not have a query or fragment, got "
                    + publicBaseUrl);
        }
        String text = publicBaseUrl.toString();
        if (text.endsWith("/")) {
            publicBaseUrl = URI.create(text.substring(0, text.length() - 1));
        }
        if (horizon == null || horizon.isNegative() || horizon.isZero()) {
            throw new IllegalArgumentException("horizon must be positive, got " + horizon);
        }
        if (maxContentBytes < 1 || maxPendingPerOwner < 1) {
            throw new IllegalArgumentException("content and pending limits must be positive, got "
                    + maxContentBytes + " and " + maxPendingPerOwner);
        }
        if (maxBodyBytes < maxContentBytes) {
            throw new IllegalArgumentException("body limit " + maxBodyBytes
                    + " bytes is below the content limit " + maxContentBytes);
        }
        if (maxHeaderBytes < 1024) {
            throw new IllegalArgumentException("header limit must be at least 1024 bytes, got " + maxHeaderBytes);
        }
        if (requestTimeout == null || requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("request timeout must be positive, got " + requestTimeout);
        }
        if (retryAfter == null || retryAfter.toSeconds() < 1) {
            throw new IllegalArgumentException("Retry-After must be at least 1 s, got " + retryAfter);
        }
        if (connections == null) {
            throw new IllegalArgumentException("connection limits are missing (use ConnectionLimits.DEFAULTS)");
        }
        if (ownerLimits == null) {
            throw new IllegalArgumentException("owner API limits are missing");
        }
    }

    /**
     * Settings with the default body, header, timeout and connection limits ({@link ConnectionLimits#DEFAULTS}). The body cap is six times the content limit
     * (a client may legally write every content character as a {@code \}{@code u00XX} escape) plus
     * {@link #ENVELOPE_BYTES}.
     */
    public static HttpSettings of(boolean scheduledMessages, URI publicBaseUrl, Duration horizon,
                                  int maxContentBytes, int maxPendingPerOwner) {
        return new HttpSettings(scheduledMessages, publicBaseUrl, horizon, maxContentBytes, maxPendingPerOwner,
                bodyCapFor(maxContentBytes), DEFAULT_MAX_HEADER_BYTES, DEFAULT_REQUEST_TIMEOUT,
                DEFAULT_RETRY_AFTER, ConnectionLimits.DEFAULTS, OwnerApiLimits.DEFAULTS);
    }

    /** The default body cap for a content limit: {@code 6 × content + 64 KiB}. */
    public static int bodyCapFor(int maxContentBytes) {
        return Math.toIntExact(6L * maxContentBytes + ENVELOPE_BYTES);
    }

    /** A copy with another feature flag. */
    public HttpSettings withScheduledMessages(boolean on) {
        return new HttpSettings(on, publicBaseUrl, horizon, maxContentBytes, maxPendingPerOwner, maxBodyBytes,
                maxHeaderBytes, requestTimeout, retryAfter, connections, ownerLimits);
    }

    /** A copy with another use-case wait. */
    public HttpSettings withRequestTimeout(Duration timeout) {
        return new HttpSettings(scheduledMessages, publicBaseUrl, horizon, maxContentBytes, maxPendingPerOwner,
                maxBodyBytes, maxHeaderBytes, timeout, retryAfter, connections, ownerLimits);
    }

    /** A copy with other connection limits. */
    public HttpSettings withConnections(ConnectionLimits limits) {
        return new HttpSettings(scheduledMessages, publicBaseUrl, horizon, maxContentBytes, maxPendingPerOwner,
                maxBodyBytes, maxHeaderBytes, requestTimeout, retryAfter, limits, ownerLimits);
    }

    /** A copy with other owner limits (the list page budget and what {@code /v1/info} advertises). */
    public HttpSettings withOwnerLimits(OwnerApiLimits limits) {
        return new HttpSettings(scheduledMessages, publicBaseUrl, horizon, maxContentBytes, maxPendingPerOwner,
                maxBodyBytes, maxHeaderBytes, requestTimeout, retryAfter, connections, limits);
    }
}
