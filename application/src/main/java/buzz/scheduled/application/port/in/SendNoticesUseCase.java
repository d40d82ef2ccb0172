package buzz.scheduled.application.port.in;

/** One pass of the notice sender (docs/nostr.md, "Notices"): what is queued and due is told, within each owner's bound. */
public interface SendNoticesUseCase {

    /** Sends what is due now; returns what the pass did. Never throws for relay trouble. */
    Pass sendDue();

    /**
     * What one pass did.
     *
     * @param notices  notices a relay took
     * @param outcomes outcomes they told of
     * @param deferred outcomes held back by their owner's bound, due again later
     * @param failed   outcomes whose notice no relay took, retried later
     */
    record Pass(int notices, int outcomes, int deferred, int failed) {
    }
}
