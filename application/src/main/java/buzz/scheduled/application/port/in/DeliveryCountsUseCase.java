package buzz.scheduled.application.port.in;

/** What this process's dispatcher has done since it started, for operators' metrics. */
public interface DeliveryCountsUseCase {

    /** A snapshot of the counters; each only grows while the process runs. */
    DeliveryCounts deliveryCounts();

    /**
     * Counters of one dispatcher.
     *
     * @param claimed         messages claimed
     * @param sent            events handed to the relay
     * @param published       sends recorded {@code published}
     * @param rejected        sends recorded {@code failed relay_rejected}
     * @param retried         sends scheduled for a retry after a transient answer
     * @param fenceRejections claims that turned out to be someone else's at the pre-send step
     * @param reaped          expired claims this process's reaper returned
     * @param errors          unexpected failures (each logged)
     */
    record DeliveryCounts(long claimed, long sent, long published, long rejected, long retried,
                          long fenceRejections, long reaped, long errors) {
    }
}
