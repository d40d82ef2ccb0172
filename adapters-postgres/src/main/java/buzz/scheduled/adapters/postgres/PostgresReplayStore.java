package buzz.scheduled.adapters.postgres;

import buzz.scheduled.application.port.out.ReplayStore;
import buzz.scheduled.domain.nostr.Signature;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NIP-98 replay guard in PostgreSQL (table {@code nip98_replay}, migration V7), shared by every node on the
 * database and kept across restarts. One statement, and one round trip, per accepted header or per group of headers
 * that arrive together ({@link GroupCommit}, at most {@link #MAX_GROUP}): an insert of the 64-byte signatures that, on
 * a conflict, takes a row over only when its {@code keep_until} has passed on the database clock; it returns a row
 * exactly for each first use, so of concurrent callers (on any node) one wins. A signature twice in one group is a
 * first use once, for the earlier caller.
 * It commits asynchronously (no WAL flush wait; a crash may forget the last fraction of a second of headers). Expired
 * rows are deleted in batches of at most {@link #PRUNE_BATCH} by whichever caller first finds {@link #PRUNE_EVERY} passed since the
 * last prune on this node, right after its own insert. A call that meets an ended or read-only pooled session runs
 * once more on a new one ({@link SessionFaults#retriedOnce}).
 */
public final class PostgresReplayStore implements ReplayStore {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresReplayStore.class);
    /** How often this node deletes expired rows (at most). */
    public static final Duration PRUNE_EVERY = Duration.ofSeconds(10);
    /** Most expired rows deleted at once. */
    public static final int PRUNE_BATCH = 10_000;

    /**
     * The insert of one header's signature or a group's (each at most once), in one statement and one round trip on an
     * autocommit connection; it returns the first uses' signatures. It commits without waiting for its WAL flush:
     * {@code set_config('synchronous_commit', 'off', true)} in the statement holds for the statement's own
     * transaction, whose commit reads it before the setting is undone at its end, so the pooled session keeps
     * {@code synchronous_commit = on} for the next borrower. That saves a disk flush per request, and a crash can
     * only lose the last moments of records (wal_writer_delay, 200 ms by default), whose headers could then be used
     * once more — a create replayed that way is still stored once (its event id is the idempotency key).
     */
    private static final String FIRST_USES = """
            INSERT INTO nip98_replay (signature, keep_until)
            SELECT r.signature, timestamptz 'epoch' + r.keep_until * interval '1 microsecond'
              FROM unnest(?::bytea[], ?::bigint[]) AS r(signature, keep_until),
                   (SELECT set_config('synchronous_commit', 'off', true)) AS asynchronous_commit
            ON CONFLICT (signature) DO UPDATE SET keep_until = EXCLUDED.keep_until
             WHERE nip98_replay.keep_until <= now()
            RETURNING signature""";
    /** Groups of headers checked at once: one, as creates ({@link PostgresMessageAdmission#DEFAULT_LANES}). */
    static final int LANES = 1;
    /** Most headers checked in one statement. */
    static final int MAX_GROUP = 100;

    private static final String PRUNE = """
            DELETE FROM nip98_replay
             WHERE signature IN (SELECT signature FROM nip98_replay WHERE keep_until < now()
                                  ORDER BY keep_until LIMIT %d FOR UPDATE SKIP LOCKED)""".formatted(PRUNE_BATCH);

    private final DataSource dataSource;
    private final LongSupplier nanoTime;
    private final AtomicLong nextPruneNanos;
    private final GroupCommit<Use, Boolean> groups = new GroupCommit<>(LANES, MAX_GROUP, this::recordAll);

    /** A header's signature and how long to keep it. */
    record Use(Signature signature, Instant keepUntil) {
    }

    /** @param dataSource the pool (autocommit connections) */
    public PostgresReplayStore(DataSource dataSource) {
        this(dataSource, System::nanoTime);
    }

    PostgresReplayStore(DataSource dataSource, LongSupplier nanoTime) {
        if (dataSource == null || nanoTime == null) {
            throw new IllegalArgumentException("a replay store needs a data source and a clock");
        }
        this.dataSource = dataSource;
        this.nanoTime = nanoTime;
        this.nextPruneNanos = new AtomicLong(nanoTime.getAsLong());
    }

    @Override
    public boolean firstUse(Signature signature, Instant keepUntil) {
        Use use = new Use(signature, keepUntil);
        return groups.submit(use, () -> recordAll(List.of(use)).get(0));
    }

    /** A group's headers (one or more), in order: whether each is a first use, from one statement. */
    List<Boolean> recordAll(List<Use> uses) {
        // each signature once: a later use of the same one in this group is a replay of the earlier
        Map<Signature, Integer> firstAt = new HashMap<>();
        for (int i = 0; i < uses.size(); i++) {
            firstAt.putIfAbsent(uses.get(i).signature(), i);
        }
        // in the signatures' order: two groups that share signatures wait for each other's inserts in one order only
        List<Integer> inserted = firstAt.values().stream()
                .sorted(java.util.Comparator.comparing(i -> uses.get(i).signature().hex())).toList();
        byte[][] keys = new byte[inserted.size()][];
        Long[] keepUntil = new Long[inserted.size()];
        int k = 0;
        for (int i : inserted) {
            keys[k] = HexFormat.of().parseHex(uses.get(i).signature().hex());
            Instant until = uses.get(i).keepUntil();
            keepUntil[k++] = Math.addExact(Math.multiplyExact(until.getEpochSecond(), 1_000_000L),
                    until.getNano() / 1_000);
        }
        // Once more on a new session after an ended one, as a header alone (a group whose insert had committed then
        // finds its own rows: the rare replay refusal docs/scheduled-messages.md §10 describes).
        Set<Signature> first = SessionFaults.retriedOnce(() -> insertFirstUses(keys, keepUntil, uses.size()));
        List<Boolean> results = new ArrayList<>(uses.size());
        for (int i = 0; i < uses.size(); i++) {
            Signature signature = uses.get(i).signature();
            results.add(first.contains(signature) && firstAt.get(signature) == i);
        }
        return results;
    }

    /** The signatures of {@code keys} that were not in use: one statement, then a prune if one is due. */
    private Set<Signature> insertFirstUses(byte[][] keys, Long[] keepUntil, int headers) {
        Set<Signature> first = new HashSet<>();
        try (Connection connection = dataSource.getConnection()) {
            try (PreparedStatement insert = connection.prepareStatement(FIRST_USES)) {
                insert.setArray(1, connection.createArrayOf("bytea", keys));
                insert.setArray(2, connection.createArrayOf("int8", keepUntil));
                try (ResultSet rows = insert.executeQuery()) {
                    while (rows.next()) {
                        first.add(new Signature(HexFormat.of().formatHex(rows.getBytes(1))));
                    }
                }
            }
            prune(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("the NIP-98 replay store could not record " + headers + " headers: "
                    + e.getMessage(), e);
        }
        return first;
    }

    /**
     * Deletes a batch of expired rows, if this node's last prune is {@link #PRUNE_EVERY} ago. Best effort: the
     * headers' rows are committed by then, so a failure here must not fail them (run again, each would find its own
     * row and be refused as a replay); the next prune deletes what this one left.
     */
    private void prune(Connection connection) {
        if (pruneDue()) {
            try (PreparedStatement prune = connection.prepareStatement(PRUNE)) {
                prune.executeUpdate();
            } catch (SQLException e) {
                LOG.warn("pruning expired NIP-98 replay records failed ({}); the next prune retries",
                        e.getMessage());
            }
        }
    }

    private boolean pruneDue() {
        long now = nanoTime.getAsLong();
        long due = nextPruneNanos.get();
        return now - due >= 0 && nextPruneNanos.compareAndSet(due, now + PRUNE_EVERY.toNanos());
    }
}
