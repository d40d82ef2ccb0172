package buzz.scheduled.adapters.relay.nip29;

import buzz.scheduled.adapters.relay.RelayClient;
import buzz.scheduled.adapters.relay.RelaySettings;
import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.adapters.relay.testing.TestRelay;
import buzz.scheduled.application.port.out.PublishResult;
import buzz.scheduled.domain.nostr.NostrEvent;
import buzz.scheduled.domain.nostr.PublicKey;
import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The real test relay with the NIP-29 plugin ({@code plugins/nip29-groups.js}): it keeps groups and publishes
 * their state as kind 39000/39001/39002 events signed with its own key, served in its NIP-11 document. A group
 * admin key and helpers publish the moderation events (create, add, remove, edit, delete) over a real relay
 * connection. Reusable from other modules through the test-jar.
 */
public final class Nip29TestRelay implements AutoCloseable {
    /** The relay's own key (the plugin signs group state with it). */
    public static final SecretKey RELAY_KEY = new SecretKey("7e".repeat(32));
    /** The group admin used by the helpers. */
    public static final SecretKey ADMIN_KEY = new SecretKey("ad".repeat(32));
    private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(10);

    private final TestRelay relay;
    private final RelayClient client;
    private final Bip340Signer admin = new Bip340Signer(ADMIN_KEY, new SecureRandom());
    private final java.util.concurrent.atomic.AtomicLong steps = new java.util.concurrent.atomic.AtomicLong();

    private Nip29TestRelay(TestRelay relay) {
        this.relay = relay;
        this.client = new RelayClient(RelaySettings.of(relay.url()), (url, challenge, at) -> {
            throw new IllegalStateException("the NIP-29 test relay does not ask for AUTH");
        }, Instant::now);
    }

    /** Starts the relay with the NIP-29 plugin on a free port. */
    public static Nip29TestRelay start() {
        return start(mode -> mode);
    }

    /**
     * Starts the relay with the NIP-29 plugin and a mode, e.g. {@code mode -> mode.env("TEST_RELAY_MAX_RESULTS",
     * "500").env("TEST_RELAY_NIP29_GROUP_COUNT", "600")} (see {@code relay.js} and {@code plugins/nip29-groups.js}).
     */
    public static Nip29TestRelay start(UnaryOperator<TestRelay.Builder> mode) {
        return new Nip29TestRelay(mode.apply(TestRelay.builder()
                .plugin("plugins/nip29-groups.js")
                .env("TEST_RELAY_NIP29_SECRET", RELAY_KEY.hex()))
                .start());
    }

    /** The relay's own pubkey: it signs the group state, and its NIP-11 document names it {@code self}. */
    public PublicKey relayPubkey() {
        return RELAY_KEY.publicKey();
    }

    /** The admin's pubkey. */
    public PublicKey adminPubkey() {
        return ADMIN_KEY.publicKey();
    }

    public URI url() {
        return relay.url();
    }

    /** The underlying relay (stop, restart, read events). */
    public TestRelay relay() {
        return relay;
    }

    /** Publishes a signed event and returns the relay's answer. */
    public PublishResult publish(NostrEvent event) {
        return client.publish(event, PUBLISH_TIMEOUT);
    }

    /** Signs an event with {@code key} now. */
    public static NostrEvent sign(SecretKey key, int kind, List<List<String>> tags, String content) {
        return new Bip340Signer(key, new SecureRandom()).sign(Instant.now().getEpochSecond(), kind, tags, content);
    }

    /** 9007 create-group by the admin, then 9002 to make it open ({@code closed=false}) if asked. */
    public void createGroup(String id, boolean closed) {
        expectAccepted(admin.sign(now(), 9007, List.of(List.of("h", id)), reason()));
        if (!closed) {
            expectAccepted(admin.sign(now(), 9002, List.of(List.of("h", id), List.of("open")), reason()));
        }
    }

    /** 9000 put-user by the admin. */
    public void addMember(String group, PublicKey member) {
        expectAccepted(admin.sign(now(), 9000, List.of(List.of("h", group), List.of("p", member.hex())), reason()));
    }

    /** 9001 remove-user by the admin. */
    public void removeMember(String group, PublicKey member) {
        expectAccepted(admin.sign(now(), 9001, List.of(List.of("h", group), List.of("p", member.hex())), reason()));
    }

    /** 9002 edit-metadata by the admin with the given flag tags ({@code archived}, {@code closed}, ...). */
    public void editGroup(String group, String... flags) {
        List<List<String>> tags = new ArrayList<>();
        tags.add(List.of("h", group));
        for (String flag : flags) {
            tags.add(List.of(flag));
        }
        expectAccepted(admin.sign(now(), 9002, tags, reason()));
    }

    /** 9008 delete-group by the admin. */
    public void deleteGroup(String group) {
        expectAccepted(admin.sign(now(), 9008, List.of(List.of("h", group)), reason()));
    }

    private void expectAccepted(NostrEvent event) {
        PublishResult result = publish(event);
        if (!(result instanceof PublishResult.Published)) {
            throw new IllegalStateException("the NIP-29 test relay refused kind " + event.kind() + ": " + result
                    + "\nrelay output:\n" + relay.output());
        }
    }

    private static long now() {
        return Instant.now().getEpochSecond();
    }

    /** A distinct reason per moderation event: the same action twice in one second must not be a duplicate. */
    private String reason() {
        return "test step " + steps.incrementAndGet();
    }

    @Override
    public void close() {
        client.close();
        relay.close();
    }
}
