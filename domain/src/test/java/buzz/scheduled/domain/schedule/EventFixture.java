package buzz.scheduled.domain.schedule;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.Hex;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.nostr.Signature;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds well-formed but unsigned {@link NostrEvent}s for domain tests. The id is a SHA-256 over the fields
 * (so different events get different ids, like real ones) and the signature is a fixed fake: the domain
 * checks shapes only, signatures are the signature port's business.
 */
final class EventFixture {
    /** The owner every fixture event is signed by unless told otherwise. */
    static final PublicKey OWNER = new PublicKey("a1".repeat(32));
    /** Somebody else. */
    static final PublicKey STRANGER = new PublicKey("b2".repeat(32));
    /** The channel every fixture event is posted to unless told otherwise. */
    static final String CHANNEL = "general";

    private static final Signature FAKE_SIG = new Signature("5a".repeat(64));

    private PublicKey pubkey = OWNER;
    private long createdAt = 1_900_000_000L;
    private int kind = 9;
    private final List<List<String>> tags = new ArrayList<>();
    private boolean channelTag = true;
    private String channel = CHANNEL;
    private String content = "see you at the stand-up";

    private EventFixture() {
    }

    /** A kind-9 message by {@link #OWNER} in {@link #CHANNEL}. */
    static EventFixture event() {
        return new EventFixture();
    }

    EventFixture pubkey(PublicKey value) {
        this.pubkey = value;
        return this;
    }

    EventFixture createdAt(long unixSeconds) {
        this.createdAt = unixSeconds;
        return this;
    }

    long createdAt() {
        return createdAt;
    }

    EventFixture kind(int value) {
        this.kind = value;
        return this;
    }

    EventFixture channel(String value) {
        this.channel = value;
        return this;
    }

    /** Leaves out the {@code h} tag. */
    EventFixture noChannel() {
        this.channelTag = false;
        return this;
    }

    EventFixture content(String value) {
        this.content = value;
        return this;
    }

    /** Adds a tag after the {@code h} tag. */
    EventFixture tag(String... values) {
        tags.add(List.of(values));
        return this;
    }

    NostrEvent build() {
        List<List<String>> all = new ArrayList<>();
        if (channelTag) {
            all.add(List.of("h", channel));
        }
        all.addAll(tags);
        String preimage = pubkey.hex() + "|" + createdAt + "|" + kind + "|" + all + "|" + content;
        return new NostrEvent(new EventId(sha256(preimage)), pubkey, createdAt, kind, all, content, FAKE_SIG);
    }

    private static String sha256(String text) {
        try {
            return Hex.encode(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
