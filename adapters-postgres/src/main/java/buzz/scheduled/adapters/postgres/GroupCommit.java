package buzz.scheduled.adapters.postgres;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Group commit for one kind of small write: callers that arrive while a write is running are queued and then
 * written together in one statement and one transaction, by one of them (the leader), instead of one
 * transaction each. Each caller still blocks until its own request is committed and gets its own answer, so
 * the storage port's one-call-one-write contract is unchanged; only the number of round trips and commits
 * falls. A caller that finds nobody writing writes its request alone at once: nothing waits for a batch to
 * fill, so an idle sidecar pays no latency for this.
 *
 * <p>Invariant: requests are queued only while a leader is active; the leader takes up to {@code maxBatch}
 * from the head of the queue (its own request first), writes them, hands each caller its answer, and passes
 * leadership to the new head of the queue if there is one. A failed write fails every request in that batch
 * with the same exception (an {@link Error} too, unwrapped), and nothing else. One write runs at a time, so a
 * write that waits (on a row lock another transaction holds) holds up every caller behind it.
 *
 * @param <I> one caller's request
 * @param <O> one caller's answer
 */
final class GroupCommit<I, O> {
    private final Function<List<I>, List<O>> write;
    private final int maxBatch;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Request<I, O>> queue = new ArrayDeque<>();
    private boolean leading;

    /**
     * @param write    writes a batch (1..maxBatch requests, in queue order) in one transaction and answers
     *                 them in the same order; may throw, which fails that batch
     * @param maxBatch the most requests one write carries (at least 1)
     */
    GroupCommit(Function<List<I>, List<O>> write, int maxBatch) {
        if (write == null || maxBatch < 1) {
            throw new IllegalArgumentException("group commit needs a write and a batch size of at least 1, got "
                    + maxBatch);
        }
        this.write = write;
        this.maxBatch = maxBatch;
    }

    /**
     * Writes {@code input}, alone or together with concurrent requests, and returns its answer once committed.
     *
     * @throws RuntimeException what the batch's write threw (an {@link Error} is rethrown as it is)
     */
    O submit(I input) {
        Request<I, O> request = new Request<>(input, lock.newCondition());
        lock.lock();
        try {
            queue.addLast(request);
            if (leading) {
                while (!request.done && !request.leader) {
                    request.turn.awaitUninterruptibly();
                }
            } else {
                leading = true;
                request.leader = true;
            }
        } finally {
            lock.unlock();
        }
        if (!request.done) {
            lead();
        }
        return switch (request.failure) {
            case null -> request.answer;
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            default -> throw new IllegalStateException("a grouped write failed", request.failure);
        };
    }

    /** Requests waiting for a leader to write them (for tests). */
    int queued() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    /** Writes one batch from the head of the queue (which holds the leader's own request), then hands over. */
    private void lead() {
        List<Request<I, O>> batch = new ArrayList<>();
        lock.lock();
        try {
            while (batch.size() < maxBatch && !queue.isEmpty()) {
                batch.add(queue.pollFirst());
            }
        } finally {
            lock.unlock();
        }
        List<O> answers = null;
        Throwable failure = null;
        // A waiter interrupted while queued may be the one that writes: the write must not see the interrupt
        // (it would close the connection's socket mid-statement and fail everyone's requests), so it is held
        // back and restored afterwards.
        boolean interrupted = Thread.interrupted();
        try {
            answers = write.apply(batch.stream().map(r -> r.input).toList());
            if (answers == null || answers.size() != batch.size()) {
                failure = new IllegalStateException("a grouped write answered "
                        + (answers == null ? "nothing" : answers.size()) + " of " + batch.size() + " requests");
            }
        } catch (Throwable e) {
            failure = e;
        } finally {
            handOver(batch, answers, failure);
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Answers every member of {@code batch} and passes leadership on; runs whatever the write did. */
    private void handOver(List<Request<I, O>> batch, List<O> answers, Throwable failure) {
        lock.lock();
        try {
            for (int i = 0; i < batch.size(); i++) {
                Request<I, O> member = batch.get(i);
                if (failure == null) {
                    member.answer = answers.get(i);
                } else {
                    member.failure = failure;
                }
                member.done = true;
                member.turn.signal();
            }
            Request<I, O> next = queue.peekFirst();
            if (next == null) {
                leading = false;
            } else {
                next.leader = true;
                next.turn.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    private static final class Request<I, O> {
        final I input;
        final Condition turn;
        boolean leader;
        boolean done;
        O answer;
        Throwable failure;

        Request(I input, Condition turn) {
            this.input = input;
            this.turn = turn;
        }
    }
}
