package buzz.scheduled.application.service;

import java.util.concurrent.atomic.AtomicLong;

/** The dispatcher's counters since it started; see {@link DispatcherCounts} for what each counts. */
final class Tally {
    final AtomicLong claimed = new AtomicLong();
    final AtomicLong sent = new AtomicLong();
    final AtomicLong published = new AtomicLong();
    final AtomicLong rejected = new AtomicLong();
    final AtomicLong retried = new AtomicLong();
    final AtomicLong expired = new AtomicLong();
    final AtomicLong ended = new AtomicLong();
    final AtomicLong deferred = new AtomicLong();
    final AtomicLong notSent = new AtomicLong();
    final AtomicLong lostAfterSend = new AtomicLong();
    final AtomicLong released = new AtomicLong();
    final AtomicLong unresolved = new AtomicLong();
    final AtomicLong renewals = new AtomicLong();
    final AtomicLong renewalFailures = new AtomicLong();
    final AtomicLong leasesLost = new AtomicLong();
    final AtomicLong reaped = new AtomicLong();
    final AtomicLong wakeUps = new AtomicLong();
    final AtomicLong writeFailures = new AtomicLong();
    final AtomicLong abandoned = new AtomicLong();
    final AtomicLong errors = new AtomicLong();

    DispatcherCounts snapshot() {
        return new DispatcherCounts(claimed.get(), sent.get(), published.get(), rejected.get(), retried.get(),
                expired.get(), ended.get(), deferred.get(), notSent.get(), lostAfterSend.get(), released.get(),
                unresolved.get(), renewals.get(), renewalFailures.get(), leasesLost.get(), reaped.get(), wakeUps.get(),
                writeFailures.get(), abandoned.get(), errors.get());
    }
}
