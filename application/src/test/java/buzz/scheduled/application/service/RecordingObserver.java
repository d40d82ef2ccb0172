package buzz.scheduled.application.service;

import buzz.scheduled.application.port.out.DeliveryObserver;
import buzz.scheduled.domain.schedule.ScheduleId;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link DeliveryObserver} that keeps every report, for assertions on what was recorded and said. */
final class RecordingObserver implements DeliveryObserver {
    private final List<DeliveryReport> reports = new CopyOnWriteArrayList<>();

    @Override
    public void outcome(DeliveryReport report) {
        reports.add(report);
    }

    /** Every report so far, in order. */
    List<DeliveryReport> reports() {
        return List.copyOf(reports);
    }

    /** The reports about one message, in order. */
    List<DeliveryReport> reportsOf(ScheduleId id) {
        return reports.stream().filter(report -> report.id().equals(id)).toList();
    }
}
