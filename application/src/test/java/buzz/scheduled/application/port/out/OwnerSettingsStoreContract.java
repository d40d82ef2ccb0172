package buzz.scheduled.application.port.out;

import static org.assertj.core.api.Assertions.assertThat;

import buzz.scheduled.application.fakes.TestEvents;
import buzz.scheduled.domain.notice.NoticeChoice;
import org.junit.jupiter.api.Test;

/** The behaviour every {@link OwnerSettingsStore} must have, run against the fake and PostgreSQL. */
public abstract class OwnerSettingsStoreContract {

    /** A store that holds no settings. */
    protected abstract OwnerSettingsStore emptyStore();

    @Test
    void notices_ownerWhoNeverChose_isEmpty() {
        assertThat(emptyStore().notices(TestEvents.ALICE)).isEmpty();
    }

    @Test
    void saveNotices_thenAnotherChoice_keepsTheLatestForThatOwnerOnly() {
        OwnerSettingsStore store = emptyStore();

        store.saveNotices(TestEvents.ALICE, NoticeChoice.ALL);
        store.saveNotices(TestEvents.ALICE, NoticeChoice.NONE);
        store.saveNotices(TestEvents.BOB, NoticeChoice.FAILURES);

        assertThat(store.notices(TestEvents.ALICE)).contains(NoticeChoice.NONE);
        assertThat(store.notices(TestEvents.BOB)).contains(NoticeChoice.FAILURES);
    }
}
