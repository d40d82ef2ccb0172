package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The group-commit hand-off on its own: each caller gets its own answer, requests that arrive during a write
 * go together in the next one (at most the batch size, in arrival order), a failed write fails exactly its
 * batch, and nothing is lost or written twice under contention.
 */
class GroupCommitTest {
    private final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        callers.shutdownNow();
    }

    /** A write that records its batches and answers each input with its square. */
    private static final class Recording implements Function<List<Integer>, List<Integer>> {
        final List<List<Integer>> batches = Collections.synchronizedList(new ArrayList<>());
        volatile CountDownLatch holdFirst;

        @Override
        public List<Integer> apply(List<Integer> batch) {
            batches.add(List.copyOf(batch));
            CountDownLatch hold = holdFirst;
            if (hold != null) {
                holdFirst = null;
                try {
                    assertThat(hold.await(10, TimeUnit.SECONDS)).as("the first write was released").isTrue();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            return batch.stream().map(i -> i * i).toList();
        }
    }

    @Test
    void aloneCaller_isWrittenAtOnceAlone() {
        Recording write = new Recording();
        GroupCommit<Integer, Integer> commit = new GroupCommit<>(write, 8);

        assertThat(commit.submit(7)).isEqualTo(49);
        assertThat(commit.submit(3)).isEqualTo(9);

        assertThat(write.batches).containsExactly(List.of(7), List.of(3));
        assertThat(commit.queued()).isZero();
    }

    @Test
    void callersArrivingDuringAWrite_goTogetherInTheNext_eachWithItsOwnAnswer() throws Exception {
        Recording write = new Recording();
        CountDownLatch release = new CountDownLatch(1);
        write.holdFirst = release;
        GroupCommit<Integer, Integer> commit = new GroupCommit<>(write, 8);

        Future<Integer> first = callers.submit(() -> commit.submit(1));
        await(() -> write.batches.size() == 1);
        List<Future<Integer>> waiting = new ArrayList<>();
        for (int i = 2; i <= 6; i++) {
            int input = i;
            waiting.add(callers.submit(() -> commit.submit(input)));
            await(() -> commit.queued() == input - 1);
        }
        release.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        for (int i = 0; i < waiting.size(); i++) {
            assertThat(waiting.get(i).get(10, TimeUnit.SECONDS)).isEqualTo((i + 2) * (i + 2));
        }
        assertThat(write.batches).containsExactly(List.of(1), List.of(2, 3, 4, 5, 6));
    }

    @Test
    void moreWaitingThanTheBatchSize_areWrittenInArrivalOrderInBatchesOfAtMostThatSize() throws Exception {
        Recording write = new Recording();
        CountDownLatch release = new CountDownLatch(1);
        write.holdFirst = release;
        GroupCommit<Integer, Integer> commit = new GroupCommit<>(write, 2);

        Future<Integer> first = callers.submit(() -> commit.submit(0));
        await(() -> write.batches.size() == 1);
        List<Future<Integer>> waiting = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            int input = i;
            waiting.add(callers.submit(() -> commit.submit(input)));
            await(() -> commit.queued() == input);
        }
        release.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS)).isZero();
        for (int i = 0; i < waiting.size(); i++) {
            assertThat(waiting.get(i).get(10, TimeUnit.SECONDS)).isEqualTo((i + 1) * (i + 1));
        }
        assertThat(write.batches).containsExactly(List.of(0), List.of(1, 2), List.of(3, 4), List.of(5));
    }

    @Test
    void failedWrite_failsEveryRequestOfItsBatch_andOnlyThose() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<List<Integer>> batches = Collections.synchronizedList(new ArrayList<>());
        GroupCommit<Integer, Integer> commit = new GroupCommit<>(batch -> {
            batches.add(List.copyOf(batch));
            if (batches.size() == 1) {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return batch;
            }
            if (batch.contains(-1)) {
                throw new IllegalStateException("deadlock detected (test)");
            }
            return batch;
        }, 3);

        Future<Integer> first = callers.submit(() -> commit.submit(0));
        await(() -> batches.size() == 1);
        List<Future<Integer>> failing = new ArrayList<>();
        for (int input : new int[] {5, -1, 6}) {
            int before = commit.queued();
            failing.add(callers.submit(() -> commit.submit(input)));
            await(() -> commit.queued() == before + 1);
        }
        Future<Integer> after = callers.submit(() -> commit.submit(8));
        await(() -> commit.queued() == 4);
        release.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS)).isZero();
        for (Future<Integer> failed : failing) {
            assertThatThrownBy(() -> failed.get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(IllegalStateException.class)
                    .hasRootCauseMessage("deadlock detected (test)");
        }
        assertThat(after.get(10, TimeUnit.SECONDS)).isEqualTo(8);
        assertThat(batches).containsExactly(List.of(0), List.of(5, -1, 6), List.of(8));
    }

    @Test
    void writeThrowingAnError_rethrowsThatErrorUnwrapped_andTheNextCallerIsWrittenNormally() {
        InternalError thrown = new InternalError("out of something (test)");
        GroupCommit<Integer, Integer> commit = new GroupCommit<>(batch -> {
            if (batch.contains(-1)) {
                throw thrown;
            }
            return batch;
        }, 4);

        assertThatThrownBy(() -> commit.submit(-1)).isSameAs(thrown);
        assertThat(commit.submit(2)).isEqualTo(2);
    }

    @Test
    void interruptedCaller_writeDoesNotSeeTheInterrupt_whichIsRestoredAfterwards() {
        List<Boolean> seenByWrite = new ArrayList<>();
        GroupCommit<Integer, Integer> commit = new GroupCommit<>(batch -> {
            seenByWrite.add(Thread.currentThread().isInterrupted());
            return batch;
        }, 4);

        Thread.currentThread().interrupt();
        int answer = commit.submit(5);
        boolean stillInterrupted = Thread.interrupted();

        assertThat(answer).isEqualTo(5);
        assertThat(seenByWrite).containsExactly(false);
        assertThat(stillInterrupted).isTrue();
    }

    @Test
    void writeAnsweringTheWrongNumber_failsTheBatchInsteadOfMisroutingAnswers() {
        GroupCommit<Integer, Integer> commit = new GroupCommit<>(batch -> List.of(), 4);

        assertThatThrownBy(() -> commit.submit(1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("answered 0 of 1");
    }

    @Test
    void manyCallersAtOnce_everyRequestWrittenExactlyOnce_withItsOwnAnswer() throws Exception {
        Recording write = new Recording();
        GroupCommit<Integer, Integer> commit = new GroupCommit<>(write, 16);
        int threads = 16;
        int perThread = 500;

        List<Future<List<Integer>>> wrong = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        for (int t = 0; t < threads; t++) {
            int base = t * perThread;
            wrong.add(callers.submit(() -> {
                go.await();
                List<Integer> misrouted = new ArrayList<>();
                for (int i = base; i < base + perThread; i++) {
                    if (commit.submit(i) != i * i) {
                        misrouted.add(i);
                    }
                }
                return misrouted;
            }));
        }
        go.countDown();

        for (Future<List<Integer>> misrouted : wrong) {
            assertThat(misrouted.get(60, TimeUnit.SECONDS)).isEmpty();
        }
        List<Integer> written = write.batches.stream().flatMap(List::stream).sorted().toList();
        assertThat(written).isEqualTo(IntStream.range(0, threads * perThread).boxed().toList());
        assertThat(write.batches).allSatisfy(batch -> assertThat(batch).hasSizeBetween(1, 16));
        assertThat(commit.queued()).isZero();
    }

    @Test
    void constructor_refusesNoWriteOrAnEmptyBatch() {
        assertThatThrownBy(() -> new GroupCommit<Integer, Integer>(null, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new GroupCommit<Integer, Integer>(List::copyOf, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1");
    }

    private static void await(BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for the callers to queue");
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
