package buzz.scheduled.adapters.relay.dvm;

import buzz.scheduled.adapters.relay.encryption.Nip44;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.JobAnswers;
import buzz.scheduled.application.port.out.NostrDelivery;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.application.port.out.RelayPublisher;
import buzz.scheduled.application.port.out.WallClock;
import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.StrictJson;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * NIP-90 answers on the sidecar's relay, signed by the sidecar's key and published through the delivery's relay client:
 * kind-7000 feedback {@code [["e", request], ["p", requester], ["status", status, info], ["schedule", id]]} and the
 * kind-6905 result {@code [["e", request], ["p", requester]]} whose content is the published event's id. For an
 * encrypted request (NIP-90 "encrypted" jobs, as NDK sends them) the {@code status} and {@code schedule} tags go into
 * the content as a JSON array of tags, NIP-44 encrypted to the requester, the result's content is NIP-44 encrypted too,
 * and an {@code ["encrypted"]} tag marks both; NDK's {@code NDKDVMJobFeedback} reads them so.
 */
public final class RelayJobAnswers implements JobAnswers {
    /** NIP-90 job feedback. */
    public static final int FEEDBACK_KIND = 7000;
    /** NIP-90 result of a kind-5905 request. */
    public static final int RESULT_KIND = 6905;

    private final SecretKey key;
    private final Bip340Signer signer;
    private final RelayPublisher relay;
    private final WallClock clock;
    private final Duration timeout;
    private final SecureRandom random;

    /**
     * @param key     the sidecar's key (signs, and encrypts to requesters)
     * @param relay   the sidecar's relay
     * @param timeout longest wait for the relay's {@code OK}
     */
    public RelayJobAnswers(SecretKey key, RelayPublisher relay, WallClock clock, Duration timeout,
                           SecureRandom random) {
        if (key == null || relay == null || clock == null || timeout == null || random == null) {
            throw new IllegalArgumentException("job answers need the sidecar key, the relay, a clock, a timeout and a"
                    + " random source");
        }
        this.key = key;
        this.signer = new Bip340Signer(key, random);
        this.relay = relay;
        this.clock = clock;
        this.timeout = timeout;
        this.random = random;
    }

    @Override
    public NostrDelivery feedback(Job job, Status status, String info, Optional<String> scheduleId) {
        List<List<String>> answer = new ArrayList<>();
        answer.add(List.of("status", status.wireName(), info));
        scheduleId.ifPresent(id -> answer.add(List.of("schedule", id)));
        List<List<String>> tags = addressed(job);
        String content = "";
        if (job.encrypted()) {
            content = Nip44.encrypt(StrictJson.write(answer), Nip44.conversationKey(key, job.requester()), random);
            tags.add(List.of("encrypted"));
        } else {
            tags.addAll(answer);
        }
        return publish(signer.sign(clock.now().getEpochSecond(), FEEDBACK_KIND, tags, content));
    }

    @Override
    public NostrDelivery result(Job job, EventId published) {
        List<List<String>> tags = addressed(job);
        String content = published.hex();
        if (job.encrypted()) {
            content = Nip44.encrypt(content, Nip44.conversationKey(key, job.requester()), random);
            tags.add(List.of("encrypted"));
        }
        return publish(signer.sign(clock.now().getEpochSecond(), RESULT_KIND, tags, content));
    }

    private static NostrDelivery undelivered(NostrEvent event, String why) {
        return new NostrDelivery.Undelivered("the relay did not take job answer " + event.id() + ": " + why);
    }

    private static List<List<String>> addressed(Job job) {
        List<List<String>> tags = new ArrayList<>();
        tags.add(List.of("e", job.requestId().hex()));
        tags.add(List.of("p", job.requester().hex()));
        return tags;
    }

    private NostrDelivery publish(NostrEvent event) {
        return switch (relay.publish(event, timeout)) {
            case PublishResult.Published published -> new NostrDelivery.Delivered(event.id());
            case PublishResult.Rejected rejected -> undelivered(event, rejected.kind() + ": " + rejected.message());
            case PublishResult.Transient failed -> undelivered(event, failed.reason());
            case PublishResult.NotSent notSent -> undelivered(event, notSent.reason());
        };
    }
}
