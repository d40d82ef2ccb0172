package buzz.scheduled.adapters.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link GroupCommit}: which items run together, who runs them, and what a failed group does. */
class GroupCommitTest {

    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final List<List<Integer>> groups = Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    /** Records each group and answers each item with ten times itself. */
    private Function<List<Integer>, List<Integer>> recorded(Function<List<Integer>, List<Integer>> then) {
        return group -> {
            groups.add(List.copyOf(group));
            return then.apply(group);
        };
    }

    private static List<Integer> timesTen(List<Integer> group) {
        return group.stream().map(i -> i * 10).toList();
    }

    private static int unused() {
        throw new AssertionError("no item may run alone here");
    }

    /** A one-lane commit whose first group, item 0 alone, runs until {@code release}; later items queue meanwhile. */
    private record HeldFirstGroup(GroupCommit<Integer, Integer> commit, Future<Integer> first,
                                  CountDownLatch release) {
    }

    /**
     * Starts item 0 and returns once its group runs; that group answers ten times its item after the release, and the
     * later groups answer by {@code later} (recorded either way).
     */
    private HeldFirstGroup heldFirstGroup(int maxGroup, Function<List<Integer>, List<Integer>> later)
            throws InterruptedException {
        CountDownLatch runs = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        GroupCommit<Integer, Integer> commit = new GroupCommit<>(1, maxGroup, recorded(group -> {
            if (group.equals(List.of(0))) {
                runs.countDown();
                await(release);
                return timesTen(group);
            }
            return later.apply(group);
        }));
        Future<Integer> first = threads.submit(() -> commit.submit(0, GroupCommitTest::unused));
        assertThat(runs.await(10, TimeUnit.SECONDS)).isTrue();
        return new HeldFirstGroup(commit, first, release);
    }

    @Test
    void aLoneItem_runsAtOnce_asAGroupOfOne() {
        GroupCommit<Integer, Integer> commit = new GroupCommit<>(1, 100, recorded(GroupCommitTest::timesTen));

        assertThat(commit.submit(7, GroupCommitTest::unused)).isEqualTo(70);
        assertThat(commit.submit(8, GroupCommitTest::unused)).isEqualTo(80);
        assertThat(groups).containsExactly(List.of(7), List.of(8));
    }

    @Test
    void itemsThatComeWhileTheLaneIsBusy_runAsTheNextGroup_oldestFirst_upToTheLargestGroup() throws Exception {
        HeldFirstGroup held = heldFirstGroup(3, GroupCommitTest::timesTen);
        GroupCommit<Integer, Integer> commit = held.commit();
        CountDownLatch releaseFirstGroup = held.release();
        List<Future<Integer>> results = new ArrayList<>();
        results.add(held.first());
        for (int item = 1; item <= 5; item++) {
            int it = item;
            results.add(threads.submit(() -> commit.submit(it, GroupCommitTest::unused)));
            awaitWaiting(commit, item);
        }

        releaseFirstGroup.countDown();

        for (int item = 0; item <= 5; item++) {
            assertThat(results.get(item).get(10, TimeUnit.SECONDS)).isEqualTo(item * 10);
        }
        assertThat(groups).containsExactly(List.of(0), List.of(1, 2, 3), List.of(4, 5));
    }

    @Test
    void aFailedGroupOfSeveral_runsEachOfItsItemsAlone_onItsOwnThread() throws Exception {
        HeldFirstGroup held = heldFirstGroup(100, group -> {
            throw new IllegalStateException("the group's statement failed");
        });
        GroupCommit<Integer, Integer> commit = held.commit();
        CountDownLatch releaseFirstGroup = held.release();
        Future<Integer> first = held.first();
        List<Future<String>> alone = new ArrayList<>();
        for (int item = 1; item <= 3; item++) {
            int it = item;
            alone.add(threads.submit(() -> commit.submit(it, () -> it * 100) + " on " + Thread.currentThread()));
            awaitWaiting(commit, item);
        }

        releaseFirstGroup.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(0);
        for (int item = 1; item <= 3; item++) {
            assertThat(alone.get(item - 1).get(10, TimeUnit.SECONDS)).startsWith(item * 100 + " on ");
        }
        assertThat(groups).containsExactly(List.of(0), List.of(1, 2, 3));
    }

    @Test
    void aFailedGroupOfOne_rethrowsItsFailure_andTheLaneIsFreeAgain() {
        AtomicInteger calls = new AtomicInteger();
        GroupCommit<Integer, Integer> commit = new GroupCommit<>(1, 100, group -> {
            if (calls.getAndIncrement() == 0) {
                throw new IllegalStateException("the database went away");
            }
            return timesTen(group);
        });

        assertThatThrownBy(() -> commit.submit(1, GroupCommitTest::unused))
                .isInstanceOf(IllegalStateException.class).hasMessage("the database went away");
        assertThat(commit.submit(2, GroupCommitTest::unused)).isEqualTo(20);
    }

    @Test
    void manyConcurrentItems_eachGetTheirOwnResult_andNoMoreGroupsRunAtOnceThanLanes() throws Exception {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        GroupCommit<Integer, Integer> commit = new GroupCommit<>(2, 16, recorded(group -> {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                Thread.yield();
                return timesTen(group);
            } finally {
                running.decrementAndGet();
            }
        }));
        List<CompletableFuture<Boolean>> clients = new ArrayList<>();
        for (int client = 0; client < 32; client++) {
            int base = client * 1_000;
            clients.add(CompletableFuture.supplyAsync(() -> {
                for (int item = base; item < base + 300; item++) {
                    if (commit.submit(item, GroupCommitTest::unused) != item * 10) {
                        return false;
                    }
                }
                return true;
            }, threads));
        }

        for (CompletableFuture<Boolean> client : clients) {
            assertThat(client.get(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(mostAtOnce.get()).isBetween(1, 2);
        List<Integer> ran = groups.stream().flatMap(List::stream).sorted().toList();
        assertThat(ran).hasSize(32 * 300).doesNotHaveDuplicates();
        assertThat(groups).allSatisfy(group -> assertThat(group).hasSizeBetween(1, 16));
    }

    @Test
    void aLeaderWhoseRequestWasCancelled_runsTheGroupUninterrupted_andKeepsItsInterruptFlag() {
        List<Boolean> interruptedInGroup = new ArrayList<>();
        GroupCommit<Integer, Integer> commit = new GroupCommit<>(1, 100, group -> {
            interruptedInGroup.add(Thread.currentThread().isInterrupted());
            return timesTen(group);
        });

        Thread.currentThread().interrupt();
        int result = commit.submit(3, GroupCommitTest::unused);
        boolean interruptedAfter = Thread.interrupted();

        assertThat(result).isEqualTo(30);
        assertThat(interruptedInGroup).containsExactly(false);
        assertThat(interruptedAfter).isTrue();
    }

    @Test
    void aLeaderInterruptedWhileItsGroupRuns_doesNotFailTheGroup() throws Exception {
        CountDownLatch groupRuns = new CountDownLatch(1);
        CountDownLatch releaseGroup = new CountDownLatch(1);
        List<Boolean> interruptedInGroup = Collections.synchronizedList(new ArrayList<>());
        GroupCommit<Integer, Integer> commit = new GroupCommit<>(1, 100, group -> {
            groupRuns.countDown();
            await(releaseGroup);
            interruptedInGroup.add(Thread.currentThread().isInterrupted());
            return timesTen(group);
        });
        CompletableFuture<String> answer = new CompletableFuture<>();
        Thread leader = Thread.ofVirtual().start(() -> {
            int result = commit.submit(4, GroupCommitTest::unused);
            answer.complete(result + (Thread.currentThread().isInterrupted() ? " interrupted" : " not interrupted"));
        });
        assertThat(groupRuns.await(10, TimeUnit.SECONDS)).isTrue();

        leader.interrupt();
        releaseGroup.countDown();

        assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo("40 interrupted");
        assertThat(interruptedInGroup).containsExactly(false);
    }

    @Test
    void anItemWhoseCallerIsInterruptedWhileItWaits_leavesTheQueue_andNeverRuns() throws Exception {
        HeldFirstGroup held = heldFirstGroup(100, GroupCommitTest::timesTen);
        GroupCommit<Integer, Integer> commit = held.commit();
        CountDownLatch releaseFirstGroup = held.release();
        Future<Integer> first = held.first();
        CompletableFuture<Throwable> cancelled = new CompletableFuture<>();
        Thread waiting = Thread.ofVirtual().start(() -> {
            try {
                commit.submit(1, GroupCommitTest::unused);
                cancelled.complete(null);
            } catch (Throwable e) {
                cancelled.complete(e);
            }
        });
        awaitWaiting(commit, 1);
        Future<Integer> later = threads.submit(() -> commit.submit(2, GroupCommitTest::unused));
        awaitWaiting(commit, 2);

        waiting.interrupt();
        assertThat(cancelled.get(10, TimeUnit.SECONDS)).isInstanceOf(java.util.concurrent.CancellationException.class);
        releaseFirstGroup.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(0);
        assertThat(later.get(10, TimeUnit.SECONDS)).isEqualTo(20);
        assertThat(groups).containsExactly(List.of(0), List.of(2));
    }

    @Test
    void lanesAndGroupSize_mustBePositive() {
        assertThatThrownBy(() -> new GroupCommit<Integer, Integer>(0, 1, GroupCommitTest::timesTen))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new GroupCommit<Integer, Integer>(1, 0, GroupCommitTest::timesTen))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("the test never released the group");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Until {@code count} items wait for a lane (each submitted item queues before it looks for one). */
    private static void awaitWaiting(GroupCommit<Integer, Integer> commit, int count) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (commit.waiting() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(commit.waiting() + " items wait, expected " + count);
            }
            Thread.onSpinWait();
        }
    }
}
