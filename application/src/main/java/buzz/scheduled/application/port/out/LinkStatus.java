package buzz.scheduled.application.port.out;

import buzz.scheduled.application.port.in.QueueStatsUseCase.Links;

/** Whether this process's connections are up right now: the relay, the wake-up listener, the NIP-29 feed. */
@FunctionalInterface
public interface LinkStatus {

    /** The connections now; must not block. */
    Links links();
}
