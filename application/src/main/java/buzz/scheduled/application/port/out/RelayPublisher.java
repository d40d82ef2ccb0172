package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.nostr.NostrEvent;

import java.time.Duration;

/**
 * Publishes an already signed event to the relay (NIP-01 {@code ["EVENT", <event>]}) and reports the relay's
 * answer classified per SPEC §3.7. Implementations send the event exactly as signed, answer NIP-42 AUTH
 * when the relay asks for it, and never throw for relay trouble: every outcome is a {@link PublishResult}.
 */
public interface RelayPublisher {

    /**
     * Sends {@code event} and waits for the relay's {@code OK}.
     *
     * @param event   the exact signed event to publish
     * @param timeout the longest this call may take, connection, AUTH and one retry included; positive
     * @return {@link PublishResult.Published} for {@code OK true} (also {@code duplicate:}),
     *         {@link PublishResult.Rejected} for a permanent refusal, {@link PublishResult.Transient} for
     *         anything worth retrying later (rate limit, relay error, unknown answer, timeout, dropped socket)
     * @throws IllegalArgumentException when {@code timeout} is not positive
     */
    PublishResult publish(NostrEvent event, Duration timeout);
}
