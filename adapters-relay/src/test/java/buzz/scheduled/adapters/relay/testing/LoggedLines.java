package buzz.scheduled.adapters.relay.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;

/**
 * The lines one class logs while a test runs, read through Logback: attach with {@link #of}, read
 * {@link #at(Level)}, close to detach and restore the logger's level. Safe to read while other threads log.
 */
public final class LoggedLines implements AutoCloseable {
    private final Logger logger;
    private final Level before;
    private final List<ILoggingEvent> lines = new CopyOnWriteArrayList<>();
    private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent line) {
            lines.add(line);
        }
    };

    private LoggedLines(Class<?> source, Level level) {
        this.logger = (Logger) LoggerFactory.getLogger(source);
        this.before = logger.getLevel();
        appender.start();
        logger.setLevel(level);
        logger.addAppender(appender);
    }

    /** Records what {@code source} logs at {@code level} and above from now on. */
    public static LoggedLines of(Class<?> source, Level level) {
        return new LoggedLines(source, level);
    }

    /** The formatted messages logged at exactly {@code level} so far, in order. */
    public List<String> at(Level level) {
        return lines.stream().filter(line -> line.getLevel() == level).map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        logger.setLevel(before);
    }
}
