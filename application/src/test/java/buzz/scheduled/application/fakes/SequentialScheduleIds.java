package buzz.scheduled.application.fakes;

import buzz.scheduled.application.port.out.ScheduleIdSource;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/** Predictable ids: 00000000-0000-4000-8000-000000000001, ...02, ... */
public final class SequentialScheduleIds implements ScheduleIdSource {
    private final AtomicLong next = new AtomicLong(1);

    @Override
    public ScheduleId next() {
        return new ScheduleId(new UUID(0x0000_0000_0000_4000L, 0x8000_0000_0000_0000L | next.getAndIncrement()));
    }
}
