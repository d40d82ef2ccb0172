package buzz.scheduled.bootstrap.database;

/**
 * Another process runs the embedded PostgreSQL in this {@code BUZZ_DATA_DIR}: an operator's mistake with a plain
 * remedy, reported in one line without a stack trace.
 */
public final class DataDirectoryLockedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** @param message what is locked and what to do */
    public DataDirectoryLockedException(String message) {
        super(message);
    }
}
