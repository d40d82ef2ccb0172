package buzz.scheduled.bootstrap.logging;

import buzz.scheduled.bootstrap.config.SidecarConfig.LogFormat;
import buzz.scheduled.bootstrap.config.SidecarConfig.LogLevel;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * The sidecar's one logging backend: SLF4J over Logback, writing to standard error. {@code System.Logger} (the
 * application module) reaches it through {@code slf4j-jdk-platform-logging}, {@code java.util.logging} (pgjdbc)
 * through {@code jul-to-slf4j}; Logback's {@code LevelChangePropagator} (logback.xml) keeps the JUL levels equal to
 * Logback's, so a JUL logger below the threshold costs nothing.
 *
 * <p>{@code BUZZ_LOG_LEVEL} becomes the root threshold; the libraries logback.xml quiets (Jetty, HikariCP, Flyway,
 * pgjdbc, …) keep their level unless {@code BUZZ_LOG_LEVEL} is stricter. {@code BUZZ_LOG_FORMAT=json} writes one
 * JSON object a line with Logback's own {@link JsonEncoder}; the text format escapes control characters in every
 * message ({@link EscapedMessageConverter}), so outside text cannot forge or hide a line. Logback installs no shutdown hook here, so lines
 * written while the sidecar's shutdown hook runs (the dispatcher's warning about unfinished sends) are kept.
 */
public final class LogSetup {
    private static final String APPENDER = "CONSOLE";
    private static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level %logger{0} - %msg%n";
    /** Logback's conversion words for the message, all of which write it with its control characters escaped. */
    private static final List<String> MESSAGE_WORDS = List.of("m", "msg", "message");
    /** The levels logback.xml gave named loggers, read once so that applying twice does not compound. */
    private static Map<String, Level> pinned;

    private LogSetup() {
    }

    /** Applies the level and format to every logger; idempotent. */
    public static synchronized void apply(LogLevel level, LogFormat format) {
        if (!SLF4JBridgeHandler.isInstalled()) {
            SLF4JBridgeHandler.removeHandlersForRootLogger();
            SLF4JBridgeHandler.install();
        }
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        if (pinned == null) {
            pinned = new LinkedHashMap<>();
            for (Logger logger : context.getLoggerList()) {
                if (logger != root && logger.getLevel() != null) {
                    pinned.put(logger.getName(), logger.getLevel());
                }
            }
        }
        Level threshold = Level.toLevel(level.name());
        root.setLevel(threshold);
        pinned.forEach((name, pin) -> context.getLogger(name)
                .setLevel(pin.isGreaterOrEqual(threshold) ? pin : threshold));
        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(context);
        console.setName(APPENDER);
        console.setTarget("System.err");
        console.setEncoder(encoder(context, format));
        console.start();
        var previous = root.getAppender(APPENDER);
        root.addAppender(console);
        if (previous != null) {
            root.detachAppender(previous);
            previous.stop();
        }
    }

    private static Encoder<ILoggingEvent> encoder(LoggerContext context, LogFormat format) {
        return switch (format) {
            case TEXT -> {
                PatternLayout layout = new PatternLayout();
                layout.setContext(context);
                for (String word : MESSAGE_WORDS) {
                    layout.getInstanceConverterMap().put(word, EscapedMessageConverter::new);
                }
                layout.setPattern(PATTERN);
                layout.start();
                LayoutWrappingEncoder<ILoggingEvent> text = new LayoutWrappingEncoder<>();
                text.setContext(context);
                text.setLayout(layout);
                text.start();
                yield text;
            }
            case JSON -> {
                JsonEncoder json = new JsonEncoder();
                json.setContext(context);
                json.setWithSequenceNumber(false);
                json.setWithNanoseconds(false);
                json.setWithContext(false);
                json.setWithMessage(false);
                json.setWithArguments(false);
                json.setWithFormattedMessage(true);
                json.start();
                yield json;
            }
        };
    }
}
