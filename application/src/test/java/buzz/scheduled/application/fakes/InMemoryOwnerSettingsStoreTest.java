package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.OwnerSettingsStore;
import buzz.scheduled.application.port.out.OwnerSettingsStoreContract;

/** The settings store contract against the fake. */
class InMemoryOwnerSettingsStoreTest extends OwnerSettingsStoreContract {
    @Override
    protected OwnerSettingsStore emptyStore() {
        return new InMemoryOwnerSettingsStore();
    }
}
