package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.EventSignatures;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Accepts every event except those a test marks invalid (for tests that are not about cryptography). */
public final class FakeEventSignatures implements EventSignatures {
    private final Map<EventId, String> invalid = new ConcurrentHashMap<>();

    /** Makes {@code id} fail verification with {@code reason}. */
    public void markInvalid(EventId id, String reason) {
        invalid.put(id, reason);
    }

    @Override
    public Verdict verify(NostrEvent event) {
        String reason = invalid.get(event.id());
        return reason == null ? new Verdict.Valid() : new Verdict.Invalid(reason);
    }
}
