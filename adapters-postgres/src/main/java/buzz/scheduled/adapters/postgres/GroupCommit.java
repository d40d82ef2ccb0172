package buzz.scheduled.adapters.postgres;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the items that wait at the same time as one group: group commit, as a database's WAL writer flushes the commits
 * that queued while it wrote. At most {@code lanes} groups run at once; an item that comes while every lane is busy
 * waits in a queue, and the next lane to come free takes up to {@code maxGroup} waiting items, oldest first, as its
 * group. No item waits for a timer: a lone item on a free lane runs at once, as a group of one.
 *
 * <p>A group runs on the thread of one of its items (its leader); no thread of its own is kept. A leader whose group
 * is done hands its lane to the oldest waiting item, which leads the next group, so no caller runs groups other than
 * its own. When a group of several fails, each of its items runs {@code alone} on its own thread instead, so one item
 * that fails cannot fail the others (so {@code together} must be safe to repeat item by item); a group of one rethrows
 * its failure. A leader's interrupt flag is cleared while it runs the group and set again afterwards.
 *
 * @param <T> an item
 * @param <R> an item's result
 */
final class GroupCommit<T, R> {

    private static final Logger LOG = LoggerFactory.getLogger(GroupCommit.class);

    /** What a waiting item is told: it leads the next group, the group failed, or its result. */
    private sealed interface Word<R> {
    }

    private record Lead<R>() implements Word<R> {
    }

    private record Alone<R>() implements Word<R> {
    }

    private record Done<R>(R result) implements Word<R> {
    }

    private record Waiting<T, R>(T item, CompletableFuture<Word<R>> word) {
    }

    private final Function<List<T>, List<R>> together;
    private final int maxGroup;
    private final Semaphore lanes;
    private final ConcurrentLinkedQueue<Waiting<T, R>> queue = new ConcurrentLinkedQueue<>();

    /**
     * @param lanes    groups that may run at once, at least 1
     * @param maxGroup most items in one group, at least 1
     * @param together runs a group: one result per item, in the items' order
     */
    GroupCommit(int lanes, int maxGroup, Function<List<T>, List<R>> together) {
        if (lanes < 1 || maxGroup < 1) {
            throw new IllegalArgumentException("lanes and maxGroup must be at least 1, got " + lanes + " and "
                    + maxGroup);
        }
        this.lanes = new Semaphore(lanes);
        this.maxGroup = maxGroup;
        this.together = Objects.requireNonNull(together, "together");
    }

    /**
     * {@code item}'s result, from the group it ran in; blocks until that group is done.
     *
     * @param alone runs {@code item} by itself, when a group of several that held it failed
     * @throws RuntimeException what a group of one ({@code item} alone) threw, or what {@code alone} threw
     */
    R submit(T item, Supplier<R> alone) {
        Waiting<T, R> me = new Waiting<>(item, new CompletableFuture<>());
        queue.add(me);
        promote();
        return switch (me.word().join()) {
            case Done<R> done -> done.result();
            case Alone<R> ignored -> alone.get();
            case Lead<R> ignored -> lead(me, alone);
        };
    }

    /** Items waiting for a lane (for tests and gauges; a moment's count). */
    int waiting() {
        return queue.size();
    }

    /** While a lane is free and an item waits, the oldest waiting item is told to lead. */
    private void promote() {
        while (!queue.isEmpty() && lanes.tryAcquire()) {
            Waiting<T, R> next = queue.poll();
            if (next != null) {
                next.word().complete(new Lead<>());
                return;
            }
            lanes.release();
        }
    }

    /** Runs the group {@code me} leads (it holds a lane), hands the lane on, and gives {@code me}'s result. */
    private R lead(Waiting<T, R> me, Supplier<R> alone) {
        List<Waiting<T, R>> group = new ArrayList<>();
        group.add(me);
        for (Waiting<T, R> next; group.size() < maxGroup && (next = queue.poll()) != null; ) {
            group.add(next);
        }
        List<R> results;
        // A leader whose own request was cancelled (its deadline passed) still runs the others' group: with its
        // interrupt flag set, the group's first socket read would fail at once.
        boolean interrupted = Thread.interrupted();
        try {
            results = together.apply(group.stream().map(Waiting::item).toList());
            if (results.size() != group.size()) {
                throw new IllegalStateException("a group of " + group.size() + " answered " + results.size());
            }
        } catch (RuntimeException | Error e) {
            restore(interrupted);
            handOn();
            if (group.size() == 1) {
                throw e;
            }
            LOG.debug("a group of {} failed ({}); each of its items runs alone", group.size(), e.toString());
            for (int i = 1; i < group.size(); i++) {
                group.get(i).word().complete(new Alone<>());
            }
            return alone.get();
        }
        restore(interrupted);
        handOn();
        for (int i = 1; i < group.size(); i++) {
            group.get(i).word().complete(new Done<>(results.get(i)));
        }
        return results.get(0);
    }

    private static void restore(boolean interrupted) {
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The lane goes to the oldest waiting item, or back to the free ones. */
    private void handOn() {
        Waiting<T, R> next = queue.poll();
        if (next != null) {
            next.word().complete(new Lead<>());
            return;
        }
        lanes.release();
        promote(); // an item queued after the poll, that found no free lane, is not left waiting
    }
}
