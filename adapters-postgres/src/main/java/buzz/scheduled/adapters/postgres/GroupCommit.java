package buzz.scheduled.adapters.postgres;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * <p>One of a group's items leads it: its caller's thread starts the group on a virtual thread of its own and waits
 * for it, so that interrupting the leader (its request's deadline passed) cannot fail the others' work. A leader whose
 * group is done hands its lane to the oldest waiting item, which leads the next group, so no caller leads groups other
 * than its own. When a group of several fails, each of its items runs {@code alone} on its own thread instead, so one item
 * that fails cannot fail the others (so {@code together} must be safe to repeat item by item); a group of one rethrows
 * its failure. An item still waiting when its caller is interrupted leaves the queue and never runs.
 *
 * @param <T> an item
 * @param <R> an item's result
 */
final class GroupCommit<T, R> {

    private static final Logger LOG = LoggerFactory.getLogger(GroupCommit.class);
    /** Where groups run: a virtual thread each. */
    private static final ExecutorService GROUP_THREADS =
            Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("buzz-group-commit-", 0).factory());

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
     * @throws CancellationException the caller was interrupted while {@code item} still waited for a group: it never
     *                               runs
     */
    R submit(T item, Supplier<R> alone) {
        Waiting<T, R> me = new Waiting<>(item, new CompletableFuture<>());
        queue.add(me);
        promote();
        return switch (await(me)) {
            case Done<R> done -> done.result();
            case Alone<R> ignored -> alone.get();
            case Lead<R> ignored -> lead(me, alone);
        };
    }

    /**
     * What {@code me} is told. An interrupt (its request's deadline passed) while it still waits in the queue takes it
     * out, so it never runs: {@link CancellationException}. Once a leader has taken it into a group, or told it to
     * lead, it waits on for that word, and its interrupt flag is set again on return.
     */
    private Word<R> await(Waiting<T, R> me) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return me.word().get();
                } catch (InterruptedException e) {
                    interrupted = true;
                    if (queue.remove(me)) {
                        throw new CancellationException("interrupted while waiting for a group");
                    }
                } catch (ExecutionException e) {
                    throw new IllegalStateException("a waiting item's word is never a failure", e);
                }
            }
        } finally {
            restore(interrupted);
        }
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
        List<T> items = group.stream().map(Waiting::item).toList();
        List<R> results;
        try {
            // On a thread of its own, which no request's deadline interrupts: an interrupt of the leader (its own
            // request cancelled, before or while the group runs) would close the group's socket and fail the others.
            results = CompletableFuture.supplyAsync(() -> together.apply(items), GROUP_THREADS).join();
            if (results.size() != group.size()) {
                throw new CompletionException(new IllegalStateException("a group of " + group.size() + " answered "
                        + results.size()));
            }
        } catch (CompletionException e) {
            handOn();
            Throwable failure = e.getCause() == null ? e : e.getCause();
            if (group.size() == 1) {
                if (failure instanceof RuntimeException runtime) {
                    throw runtime;
                }
                if (failure instanceof Error error) {
                    throw error;
                }
                throw new IllegalStateException(failure);
            }
            LOG.debug("a group of {} failed ({}); each of its items runs alone", group.size(), failure.toString());
            for (int i = 1; i < group.size(); i++) {
                group.get(i).word().complete(new Alone<>());
            }
            return alone.get();
        }
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
