package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.SendNoticesUseCase;
import buzz.scheduled.application.port.out.DirectMessages;
import buzz.scheduled.application.port.out.NostrDelivery;
import buzz.scheduled.application.port.out.NoticeOutbox;
import buzz.scheduled.application.port.out.NoticeOutbox.Queued;
import buzz.scheduled.domain.notice.MessageOutcome;
import buzz.scheduled.domain.notice.NoticeText;
import buzz.scheduled.domain.nostr.PublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Tells owners how their messages ended (docs/nostr.md, "Notices"): takes what the store queued, groups it by owner
 * (a notice never speaks of another owner's messages), and sends each owner one NIP-17 message per
 * {@link NoticeText#MAX_OUTCOMES} outcomes, at most {@link NoticeSettings#perOwnerPerHour()} an hour; the rest waits.
 * An outcome is marked sent only once a relay took its notice; one no relay took is tried again with a growing delay
 * (at least once, never lost to a relay's bad moment).
 */
public final class NoticeService implements SendNoticesUseCase {
    private static final Duration FIRST_RETRY = Duration.ofSeconds(30);
    private static final Duration LAST_RETRY = Duration.ofHours(1);

    private final NoticeOutbox outbox;
    private final DirectMessages messages;
    private final NoticeSettings settings;

    public NoticeService(NoticeOutbox outbox, DirectMessages messages, NoticeSettings settings) {
        if (outbox == null || messages == null || settings == null) {
            throw new IllegalArgumentException("the notice sender needs its outbox, direct messages and settings");
        }
        this.outbox = outbox;
        this.messages = messages;
        this.settings = settings;
    }

    @Override
    public Pass sendDue() {
        List<Queued> taken = outbox.take(settings.batch(), settings.lease());
        Map<PublicKey, List<Queued>> byOwner = new LinkedHashMap<>();
        for (Queued queued : taken) {
            byOwner.computeIfAbsent(queued.outcome().owner(), owner -> new ArrayList<>()).add(queued);
        }
        int notices = 0;
        int told = 0;
        int deferred = 0;
        int failed = 0;
        for (Map.Entry<PublicKey, List<Queued>> entry : byOwner.entrySet()) {
            PublicKey owner = entry.getKey();
            int budget = settings.perOwnerPerHour() - outbox.sentWithin(owner, NoticeSettings.WINDOW);
            List<Queued> queued = entry.getValue();
            for (int from = 0; from < queued.size(); from += NoticeText.MAX_OUTCOMES) {
                List<Queued> chunk = queued.subList(from, Math.min(queued.size(), from + NoticeText.MAX_OUTCOMES));
                List<Long> ids = chunk.stream().map(Queued::id).toList();
                if (budget <= 0) {
                    outbox.retryLater(ids, settings.deferral(), "held back: " + settings.perOwnerPerHour()
                            + " notices an hour per owner (BUZZ_NOTICES_PER_OWNER_PER_HOUR)");
                    deferred += chunk.size();
                    continue;
                }
                List<MessageOutcome> outcomes = chunk.stream().map(Queued::outcome).toList();
                switch (messages.send(owner, NoticeText.of(outcomes))) {
                    case NostrDelivery.Delivered delivered -> {
                        outbox.sent(owner, ids, delivered.eventId());
                        budget--;
                        notices++;
                        told += chunk.size();
                    }
                    case NostrDelivery.Undelivered undelivered -> {
                        int attempts = chunk.stream().mapToInt(Queued::attempts).max().orElse(0);
                        outbox.retryLater(ids, retryDelay(attempts), undelivered.why());
                        failed += chunk.size();
                    }
                }
            }
        }
        return new Pass(notices, told, deferred, failed);
    }

    /** 30 s, doubling with each attempt, at most an hour. */
    static Duration retryDelay(int attempts) {
        Duration delay = FIRST_RETRY.multipliedBy(1L << Math.min(attempts, 10));
        return delay.compareTo(LAST_RETRY) > 0 ? LAST_RETRY : delay;
    }
}
