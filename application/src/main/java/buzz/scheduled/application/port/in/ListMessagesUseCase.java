package buzz.scheduled.application.port.in;

import buzz.scheduled.application.port.out.ScheduleStore;

/** Lists an owner's messages by due time with an opaque cursor (SPEC §4). */
public interface ListMessagesUseCase {

    /** One page; default filters are the adapter's business (non-terminal states, limit 50). */
    ScheduleStore.Page list(ScheduleStore.ListQuery query);
}
