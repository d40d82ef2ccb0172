package buzz.scheduled.adapters.postgres;

import java.time.Duration;

/**
 * Connection pool limits.
 *
 * @param maximumPoolSize   most connections the pool opens, at least 1
 * @param connectionTimeout longest a caller waits for a free connection before getting an error (at least
 *                          250 ms, HikariCP's floor); keeps request threads from hanging when the pool is
 *                          exhausted (docs/failure-scenarios.md F9)
 * @param poolName          name shown in logs and metrics, not blank
 * @throws IllegalArgumentException naming the value that is out of range
 */
public record PoolSettings(int maximumPoolSize, Duration connectionTimeout, String poolName) {

    /** Ten connections, a five-second wait, pool name {@code buzz-postgres}. */
    public static final PoolSettings DEFAULT = new PoolSettings(10, Duration.ofSeconds(5), "buzz-postgres");

    public PoolSettings {
        if (maximumPoolSize < 1) {
            throw new IllegalArgumentException("maximumPoolSize must be at least 1, got " + maximumPoolSize);
        }
        if (connectionTimeout == null || connectionTimeout.compareTo(Duration.ofMillis(250)) < 0) {
            throw new IllegalArgumentException("connectionTimeout must be at least 250 ms, got " + connectionTimeout);
        }
        if (poolName == null || poolName.isBlank()) {
            throw new IllegalArgumentException("poolName must not be blank");
        }
    }
}
