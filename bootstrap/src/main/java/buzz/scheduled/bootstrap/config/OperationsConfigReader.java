package buzz.scheduled.bootstrap.config;

import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_CORS_ORIGINS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_DVM;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_DVM_MAX_REQUEST_BYTES;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_DVM_REQUESTS_PER_MINUTE;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_LOG_FORMAT;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_LOG_LEVEL;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_NOTICES;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_NOTICES_PER_OWNER_PER_HOUR;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_NOTICE_PRIVATE_RELAYS;
import static buzz.scheduled.bootstrap.config.SidecarConfig.BUZZ_SCHEDULED_MESSAGES;

import buzz.scheduled.adapters.http.CorsOrigins;
import buzz.scheduled.bootstrap.config.SidecarConfig.LogFormat;
import buzz.scheduled.bootstrap.config.SidecarConfig.LogLevel;
import buzz.scheduled.bootstrap.config.SidecarConfig.Nostr;
import buzz.scheduled.bootstrap.config.SidecarConfig.Operations;
import java.util.Locale;

/**
 * Reads how the sidecar reports (logging, browser origins) and which Nostr-native features it runs (docs/nostr.md).
 * Part of {@link SidecarConfig#fromEnvironment}; the logging alone also for
 * {@link SidecarConfig#operationsFromEnvironment}.
 */
final class OperationsConfigReader {
    private OperationsConfigReader() {
    }

    /** {@code BUZZ_LOG_LEVEL}, {@code BUZZ_LOG_FORMAT} and {@code BUZZ_CORS_ORIGINS}. */
    static Operations operations(EnvironmentReader env) {
        String levelText = env.text(BUZZ_LOG_LEVEL, "INFO");
        LogLevel level = LogLevel.parse(levelText).orElseThrow(() -> new InvalidConfigurationException(
                BUZZ_LOG_LEVEL, BUZZ_LOG_LEVEL + " must be one of TRACE, DEBUG, INFO, WARN, ERROR, got '"
                + levelText + "'"));
        String formatText = env.text(BUZZ_LOG_FORMAT, "text");
        LogFormat format = switch (formatText.toLowerCase(Locale.ROOT)) {
            case "text" -> LogFormat.TEXT;
            case "json" -> LogFormat.JSON;
            default -> throw new InvalidConfigurationException(BUZZ_LOG_FORMAT, BUZZ_LOG_FORMAT
                    + " must be text or json, got '" + formatText + "'");
        };
        CorsOrigins cors;
        try {
            cors = CorsOrigins.parse(env.text(BUZZ_CORS_ORIGINS, ""));
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigurationException(BUZZ_CORS_ORIGINS, BUZZ_CORS_ORIGINS
                    + " must be empty, * or a comma list of origins such as https://chat.example.com: "
                    + e.getMessage());
        }
        return new Operations(level, format, cors);
    }

    /** The Nostr-native features (docs/nostr.md); the front door needs the scheduled messages on. */
    static Nostr nostr(EnvironmentReader env, boolean scheduledMessages) {
        boolean dvm = env.onOff(BUZZ_DVM, false);
        if (dvm && !scheduledMessages) {
            throw new InvalidConfigurationException(BUZZ_DVM, BUZZ_DVM + "=on needs " + BUZZ_SCHEDULED_MESSAGES
                    + "=on: the kind-5905 front door admits messages as the owner API does");
        }
        return new Nostr(dvm,
                (int) env.integer(BUZZ_DVM_REQUESTS_PER_MINUTE, 30, 1, 100_000, "requests a minute"),
                (int) env.integer(BUZZ_DVM_MAX_REQUEST_BYTES, Nostr.DEFAULT_MAX_REQUEST_BYTES, 1024, 16 << 20,
                        "characters"),
                env.onOff(BUZZ_NOTICES, false),
                (int) env.integer(BUZZ_NOTICES_PER_OWNER_PER_HOUR, 12, 1, 3_600, "notices an hour"),
                env.onOff(BUZZ_NOTICE_PRIVATE_RELAYS, false));
    }
}
