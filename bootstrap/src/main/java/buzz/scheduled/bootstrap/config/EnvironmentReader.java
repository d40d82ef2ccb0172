package buzz.scheduled.bootstrap.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads typed values from an environment map, turning every malformed value into an
 * {@link InvalidConfigurationException} that names the variable, shows what was given and says what is expected.
 * A variable that is unset or blank counts as unset.
 */
final class EnvironmentReader {

    private final Map<String, String> environment;

    EnvironmentReader(Map<String, String> environment) {
        if (environment == null) {
            throw new IllegalArgumentException("environment map is missing");
        }
        this.environment = environment;
    }

    /** The trimmed value, or empty when unset or blank. */
    Optional<String> text(String name) {
        String value = environment.get(name);
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        return Optional.of(value.strip());
    }

    /** The trimmed value, or {@code fallback}. */
    String text(String name, String fallback) {
        return text(name).orElse(fallback);
    }

    /** A whole number in {@code [min, max]}, or {@code fallback} when unset. */
    long integer(String name, long fallback, long min, long max, String unit) {
        Optional<String> raw = text(name);
        if (raw.isEmpty()) {
            return fallback;
        }
        long value;
        try {
            value = Long.parseLong(raw.get());
        } catch (NumberFormatException e) {
            throw outOfRange(name, raw.get(), min, max, unit);
        }
        if (value < min || value > max) {
            throw outOfRange(name, raw.get(), min, max, unit);
        }
        return value;
    }

    /** A whole number of seconds in {@code [minSeconds, maxSeconds]}, or {@code fallbackSeconds} when unset. */
    Duration seconds(String name, long fallbackSeconds, long minSeconds, long maxSeconds) {
        return Duration.ofSeconds(integer(name, fallbackSeconds, minSeconds, maxSeconds, "seconds"));
    }

    /** {@code on}/{@code true}/{@code 1} or {@code off}/{@code false}/{@code 0} (any case), or {@code fallback}. */
    boolean onOff(String name, boolean fallback) {
        Optional<String> raw = text(name);
        if (raw.isEmpty()) {
            return fallback;
        }
        String value = raw.get().toLowerCase(Locale.ROOT);
        if (Set.of("on", "true", "1").contains(value)) {
            return true;
        }
        if (Set.of("off", "false", "0").contains(value)) {
            return false;
        }
        throw new InvalidConfigurationException(name, name + " must be on or off (true/1 also mean on, false/0 off), got '"
                + raw.get() + "'");
    }

    /** A filesystem path, or {@code fallback} when unset. */
    Path path(String name, Path fallback) {
        Optional<String> raw = text(name);
        if (raw.isEmpty()) {
            return fallback;
        }
        try {
            return Path.of(raw.get());
        } catch (InvalidPathException e) {
            throw new InvalidConfigurationException(name, name + " is not a usable path: " + e.getMessage());
        }
    }

    /**
     * An absolute URI with one of {@code schemes} and a host, without user info or fragment.
     *
     * @param what a few words for the message, e.g. "a WebSocket URL"
     */
    URI uri(String name, String value, Set<String> schemes, String what) {
        URI uri;
        try {
            uri = new URI(value);
        } catch (URISyntaxException e) {
            throw new InvalidConfigurationException(name, name + " must be " + what + ", got '" + value + "' ("
                    + e.getReason() + " at index " + e.getIndex() + ")");
        }
        String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
        if (scheme == null || !schemes.contains(scheme)) {
            throw new InvalidConfigurationException(name, name + " must be " + what + " starting with "
                    + String.join(":// or ", schemes.stream().sorted().toList()) + "://, got '" + value + "'");
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            throw new InvalidConfigurationException(name, name + " must name a host, got '" + value + "'");
        }
        if (uri.getRawUserInfo() != null || uri.getRawFragment() != null) {
            throw new InvalidConfigurationException(name, name + " must not carry user info or a #fragment, got '"
                    + value + "'");
        }
        return uri;
    }

    private static InvalidConfigurationException outOfRange(String name, String raw, long min, long max, String unit) {
        return new InvalidConfigurationException(name, name + " must be a whole number from " + min + " to " + max
                + " (" + unit + "), got '" + raw + "'");
    }
}
