package buzz.scheduled.adapters.relay;

import buzz.scheduled.adapters.relay.signature.Bip340Signer;
import buzz.scheduled.adapters.relay.signature.SecretKey;
import buzz.scheduled.domain.nostr.NostrEvent;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Test-only keys (from {@code vectors/nostr-keys.json}) and freshly signed channel messages. */
final class TestSigners {
    /** An author. */
    static final Bip340Signer ALICE = signer("bfc8054fd72c3a3d2815e4a0b377c8b5bba4978057cd98580522d3ab82ebe292");
    /** Another author. */
    static final Bip340Signer BOB = signer("1d95bb09966daf0da66d8bce5cd7634cb3eaf72b04135a592f6c0ac192f46c8b");
    /** The sidecar's own key, used for NIP-42 AUTH. */
    static final Bip340Signer SIDECAR = signer("fc5e84153fb5e61d8a8e193e06aac244575ec19e77873edcceadecc4db625a4f");

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private TestSigners() {
    }

    /** A new kind-9 message in {@code channel} by {@code author}, created now; every call gives a new id. */
    static NostrEvent message(Bip340Signer author, String channel) {
        return author.sign(Instant.now().getEpochSecond(), 9, List.of(List.of("h", channel)),
                "scheduled message #" + SEQUENCE.incrementAndGet());
    }

    private static Bip340Signer signer(String secretHex) {
        return new Bip340Signer(new SecretKey(secretHex), new SecureRandom());
    }
}
