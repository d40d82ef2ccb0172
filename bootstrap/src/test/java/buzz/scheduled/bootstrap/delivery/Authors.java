package buzz.scheduled.bootstrap.delivery;

import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.application.port.out.MessageAdmission;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.schedule.Admission;
import buzz.scheduled.domain.schedule.Channel;
import buzz.scheduled.domain.schedule.ScheduleId;
import buzz.scheduled.domain.schedule.ScheduledMessage;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * An author with a real BIP-340 key (the real relay verifies signatures) who stores channel messages directly
 * in the store, as admission would after its checks.
 */
final class Authors {
    static final Channel CHANNEL = new Channel("general");
    static final MessageAdmission.CreateLimits ROOMY =
            new MessageAdmission.CreateLimits(1_000_000, 1_000_000, Duration.ofMinutes(5));

    private final Bip340Signer signer = new Bip340Signer(SecretKey.generate(new SecureRandom()), new SecureRandom());
    private final Channel channel;

    /** An author posting in {@link #CHANNEL}. */
    Authors() {
        this(CHANNEL);
    }

    /** An author posting in {@code channel}. */
    Authors(Channel channel) {
        this.channel = channel;
    }

    /** The author's pubkey (hex), for relay filters. */
    String pubkey() {
        return signer.publicKey().hex();
    }

    /** A signed kind-9 message in this author's channel due at {@code dueAt} (whole seconds). */
    NostrEvent message(Instant dueAt, String content) {
        return signer.sign(dueAt.getEpochSecond(), 9, List.of(List.of("h", channel.value())), content);
    }

    /** Stores {@code event} as a new scheduled message (revision 1, due at its {@code created_at}, in its channel). */
    static ScheduledMessage schedule(MessageAdmission store, NostrEvent event) {
        Instant dueAt = Instant.ofEpochSecond(event.createdAt());
        Channel channel = new Channel(event.firstTagValue("h").orElseThrow());
        ScheduledMessage message = ScheduledMessage.admit(new ScheduleId(UUID.randomUUID()),
                new Admission(event, channel, dueAt), Instant.now());
        MessageAdmission.CreateResult created = store.create(message,
                new MessageAdmission.IdempotencyKey(event.pubkey(), event.id().hex()), ROOMY);
        if (!(created instanceof MessageAdmission.CreateResult.Created)) {
            throw new IllegalStateException("could not store " + event.id() + ": " + created);
        }
        return message;
    }
}
