package buzz.scheduled.adapters.relay;

import java.util.concurrent.atomic.AtomicLong;

/** What the {@link RelayClient} and its sessions have seen since the client was made (read as its counts). */
final class RelayCounters {
    final AtomicLong connections = new AtomicLong();
    final AtomicLong drops = new AtomicLong();
    final AtomicLong timeouts = new AtomicLong();
    final AtomicLong found = new AtomicLong();
    final AtomicLong resent = new AtomicLong();
    final AtomicLong notSent = new AtomicLong();
    final AtomicLong tooLarge = new AtomicLong();
    final AtomicLong authRefusals = new AtomicLong();
    final AtomicLong rateLimited = new AtomicLong();
    final AtomicLong askedAgainAfterAuth = new AtomicLong();
    final AtomicLong eventsSent = new AtomicLong();
}
