package buzz.scheduled.application.service;

import buzz.scheduled.application.port.out.ReplayStore;
import buzz.scheduled.application.port.out.ReplayStoreContract;
import java.time.Instant;

/** The replay store contract against the in-process store. */
class InProcessReplayStoreContractTest extends ReplayStoreContract {
    @Override
    protected ReplayStore emptyStore() {
        return new InProcessReplayStore(1_000, Instant::now);
    }
}
