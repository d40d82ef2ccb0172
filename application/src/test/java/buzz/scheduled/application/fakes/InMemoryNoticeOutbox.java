package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.NoticeOutbox;
import buzz.scheduled.domain.notice.MessageOutcome;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.PublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The notice outbox in memory, on a {@link SettableClock} standing in for the store's. What the database's trigger does
 * in production, a test does with {@link #queue}: it honours the switch as the trigger does.
 */
public final class InMemoryNoticeOutbox implements NoticeOutbox {
    private final SettableClock clock;
    private final Map<Long, Row> rows = new LinkedHashMap<>();
    private final List<Sent> sent = new ArrayList<>();
    private long nextId = 1;
    private boolean on;

    /** A notice sent: to whom, and as which gift wrap. */
    public record Sent(PublicKey owner, EventId wrapId, Instant at) {
    }

    private static final class Row {
        final MessageOutcome outcome;
        Instant notBefore;
        int attempts;
        boolean sent;
        String lastError;

        Row(MessageOutcome outcome, Instant notBefore) {
            this.outcome = outcome;
            this.notBefore = notBefore;
        }
    }

    public InMemoryNoticeOutbox(SettableClock clock) {
        this.clock = clock;
    }

    /** What the trigger does when a message ends: queues {@code outcome} (only while switched on). */
    public synchronized void queue(MessageOutcome outcome) {
        if (on) {
            rows.put(nextId++, new Row(outcome, clock.now()));
        }
    }

    @Override
    public synchronized void switchTo(boolean on) {
        this.on = on;
    }

    @Override
    public synchronized List<Queued> take(int max, Duration lease) {
        Instant now = clock.now();
        List<Queued> taken = new ArrayList<>();
        rows.entrySet().stream()
                .filter(entry -> !entry.getValue().sent && !entry.getValue().notBefore.isAfter(now))
                .sorted(Map.Entry.<Long, Row>comparingByValue((a, b) -> a.notBefore.compareTo(b.notBefore))
                        .thenComparing(Map.Entry.comparingByKey()))
                .limit(max)
                .forEach(entry -> {
                    Row row = entry.getValue();
                    taken.add(new Queued(entry.getKey(), row.outcome, row.attempts));
                    row.attempts++;
                    row.notBefore = now.plus(lease);
                });
        return taken;
    }

    @Override
    public synchronized int sentWithin(PublicKey owner, Duration window) {
        Instant since = clock.now().minus(window);
        return (int) sent.stream().filter(s -> s.owner().equals(owner) && s.at().isAfter(since)).count();
    }

    @Override
    public synchronized void sent(PublicKey owner, List<Long> ids, EventId wrapId) {
        for (Long id : ids) {
            Row row = rows.get(id);
            if (row != null && row.outcome.owner().equals(owner)) {
                row.sent = true;
                row.lastError = null;
            }
        }
        sent.add(new Sent(owner, wrapId, clock.now()));
    }

    @Override
    public synchronized void retryLater(List<Long> ids, Duration delay, String why) {
        for (Long id : ids) {
            Row row = rows.get(id);
            if (row != null && !row.sent) {
                row.notBefore = clock.now().plus(delay);
                row.lastError = why;
            }
        }
    }

    /** Notices marked sent, in order. */
    public synchronized List<Sent> sentNotices() {
        return List.copyOf(sent);
    }

    /** How many queued outcomes are not sent yet. */
    public synchronized long unsent() {
        return rows.values().stream().filter(row -> !row.sent).count();
    }
}
