package buzz.scheduled.application.port.out;

import buzz.scheduled.domain.nostr.Signature;
import java.time.Instant;

/**
 * Where NIP-98 authentication remembers the headers it accepted, so each is accepted once (the replay guard). Keyed
 * by the header event's BIP-340 signature: a captured header repeats its signature exactly, while the same request
 * signed again carries a fresh one (BIP-340 signing takes fresh auxiliary randomness). An entry is kept until
 * {@code keepUntil}, the moment after which the header could no longer be accepted anyway (its {@code created_at}
 * plus the window, plus a margin for clock differences between nodes); a store shared by every node and kept
 * across restarts (PostgreSQL in production) makes the guard hold behind a load balancer and over a restart.
 */
public interface ReplayStore {

    /**
     * Records {@code signature} as used until {@code keepUntil}, atomically with respect to every other caller of
     * the same store (every node, for a shared one).
     *
     * @return true when this is the signature's first use (it was not recorded, or only with a {@code keepUntil}
     *         already past), false for a replay
     * @throws RuntimeException when the store cannot answer (e.g. the database is unreachable); the request is
     *                          then not authenticated
     */
    boolean firstUse(Signature signature, Instant keepUntil);
}
