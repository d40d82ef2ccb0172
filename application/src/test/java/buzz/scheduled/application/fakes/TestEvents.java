package buzz.scheduled.application.fakes;

import buzz.scheduled.domain.nostr.EventId;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.nostr.Signature;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Well-formed events with made-up ids and signatures, for tests whose signature port is
 * {@link FakeEventSignatures}. Each built event gets a distinct id.
 */
public final class TestEvents {
    /** An owner's pubkey. */
    public static final PublicKey ALICE = new PublicKey("a".repeat(64));
    /** Another owner's pubkey. */
    public static final PublicKey BOB = new PublicKey("b".repeat(64));

    private static final AtomicLong SERIAL = new AtomicLong();

    private PublicKey pubkey = ALICE;
    private long createdAt;
    private int kind = 9;
    private final List<List<String>> tags = new ArrayList<>();
    private String content = "hello";
    private String id;

    private TestEvents(long createdAt) {
        this.createdAt = createdAt;
        tags.add(List.of("h", "general"));
    }

    /** A kind-9 event by {@link #ALICE} in channel {@code general} at {@code createdAt} (Unix seconds). */
    public static TestEvents at(long createdAt) {
        return new TestEvents(createdAt);
    }

    public TestEvents by(PublicKey author) {
        this.pubkey = author;
        return this;
    }

    public TestEvents kind(int value) {
        this.kind = value;
        return this;
    }

    public TestEvents channel(String channel) {
        tags.removeIf(tag -> tag.get(0).equals("h"));
        tags.add(List.of("h", channel));
        return this;
    }

    public TestEvents tag(String... values) {
        tags.add(List.of(values));
        return this;
    }

    public TestEvents content(String text) {
        this.content = text;
        return this;
    }

    /** A chosen id (64 lowercase hex) instead of the next serial, whose leading zeros count as NIP-13 work. */
    public TestEvents id(String hex) {
        this.id = hex;
        return this;
    }

    public NostrEvent build() {
        String hex = id != null ? id : String.format("%064x", SERIAL.incrementAndGet());
        return new NostrEvent(new EventId(hex), pubkey, createdAt, kind, tags, content, new Signature("5".repeat(128)));
    }
}
