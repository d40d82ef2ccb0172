package buzz.scheduled.adapters.http.access;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * Where and how the {@code http} access policy asks ({@code BUZZ_ACCESS_POLICY=http}).
 *
 * @param url           {@code BUZZ_ACCESS_URL}: absolute {@code http}/{@code https} URL the decision is POSTed to
 * @param timeout       longest wait for the whole answer; past it the policy answers "unavailable" (keep it well
 *                      below the HTTP API's request timeout so admission can still answer {@code 503} in time)
 * @param authorization an {@code Authorization} header value sent with every request, if the callback wants one
 */
public record CallbackSettings(URI url, Duration timeout, Optional<String> authorization) {
    /** Default wait: 3 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(3);

    public CallbackSettings {
        if (url == null) {
            throw new IllegalArgumentException("BUZZ_ACCESS_URL is missing (needed when BUZZ_ACCESS_POLICY=http)");
        }
        String scheme = url.getScheme();
        if (!url.isAbsolute() || !("http".equals(scheme) || "https".equals(scheme)) || url.getRawAuthority() == null) {
            throw new IllegalArgumentException("BUZZ_ACCESS_URL must be an absolute http(s) URL, got " + url);
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("access callback timeout must be positive, got " + timeout);
        }
        if (authorization == null || authorization.filter(String::isBlank).isPresent()) {
            throw new IllegalArgumentException("access callback authorization must be absent or non-blank");
        }
    }

    /** {@code url} with the default timeout and no authorization header. */
    public static CallbackSettings of(URI url) {
        return new CallbackSettings(url, DEFAULT_TIMEOUT, Optional.empty());
    }
}
