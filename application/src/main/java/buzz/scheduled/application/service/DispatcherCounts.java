package buzz.scheduled.application.service;

/**
 * What a {@link Dispatcher} has done since it started (for metrics and tests).
 *
 * @param claimed         claims taken (straight into {@code sending})
 * @param sent            frames handed to the relay connection
 * @param published       recorded {@code published}
 * @param rejected        recorded {@code failed relay_rejected}
 * @param retried         sent back to {@code scheduled} with a retry time (transient answers, frames not sent,
 *                        the access policy unavailable)
 * @param expired         recorded {@code failed expired} (late at the claim, or a retry past the lateness limit)
 * @param ended           ended before sending for another reason ({@code channel_deleted}, {@code access_denied})
 * @param deferred        put off because the access policy could not answer
 * @param notSent         frames the relay connection never wrote (deadline passed, claim lost, shutdown)
 * @param lostAfterSend   outcomes not recorded because the claim was gone (reaped, superseded)
 * @param released        unsent claims given back
 * @param unresolved      claims given back at a stop's end with their frames written and unanswered
 * @param renewals        renewal rounds that reached the store
 * @param renewalFailures renewal rounds that failed
 * @param leasesLost      claims a renewal found no longer held
 * @param reaped          expired claims this node's reaper returned
 * @param wakeUps         sleeps ended early by a notification
 * @param writeFailures   outcome writes that failed and were tried again
 * @param abandoned       outcomes given up on after their lease and the reaper's grace ended
 * @param errors          unexpected failures (store errors in the claim loop or the reaper), each logged
 */
public record DispatcherCounts(long claimed, long sent, long published, long rejected, long retried, long expired,
                               long ended, long deferred, long notSent, long lostAfterSend, long released,
                               long unresolved, long renewals, long renewalFailures, long leasesLost, long reaped,
                               long wakeUps, long writeFailures, long abandoned, long errors) {
}
