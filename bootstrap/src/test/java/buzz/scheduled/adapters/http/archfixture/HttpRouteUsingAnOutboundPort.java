package buzz.scheduled.adapters.http.archfixture;

import buzz.scheduled.application.port.in.ListMessagesUseCase.Page;
import buzz.scheduled.application.port.out.MessageAdmission.IdempotencyKey;
import buzz.scheduled.domain.nostr.PublicKey;

/**
 * A deliberate violation for ArchitectureRulesTest: an HTTP route reaching for an outbound port's type, as the owner
 * routes once checked an {@code Idempotency-Key} with the store port's record.
 */
public final class HttpRouteUsingAnOutboundPort {
    /** Checks a header with the outbound port's record instead of the use case's rule. */
    public boolean acceptable(PublicKey owner, String key) {
        try {
            return new IdempotencyKey(owner, key).key().equals(key);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Uses a type the inbound port owns, which is allowed. */
    public int items(Page page) {
        return page.items().size();
    }
}
