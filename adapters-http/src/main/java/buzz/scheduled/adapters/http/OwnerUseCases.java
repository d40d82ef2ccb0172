package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.CancelMatchingUseCase;
import buzz.scheduled.application.port.in.CancelMessageUseCase;
import buzz.scheduled.application.port.in.GetMessageUseCase;
import buzz.scheduled.application.port.in.ListMessagesUseCase;
import buzz.scheduled.application.port.in.ReviseMessageUseCase;
import buzz.scheduled.application.port.in.ScheduleBatchUseCase;
import buzz.scheduled.application.port.in.ScheduleMessageUseCase;
import buzz.scheduled.application.port.in.SendNowUseCase;
import buzz.scheduled.application.port.in.SeriesSummaryUseCase;

/** The owner use cases the owner routes call (docs/openapi.yaml, tag owner). */
public record OwnerUseCases(ScheduleMessageUseCase schedule, ReviseMessageUseCase revise,
                            CancelMessageUseCase cancel, SendNowUseCase sendNow, GetMessageUseCase get,
                            ListMessagesUseCase list, ScheduleBatchUseCase batch, CancelMatchingUseCase cancelMatching,
                            SeriesSummaryUseCase series) {
    public OwnerUseCases {
        if (schedule == null || revise == null || cancel == null || sendNow == null || get == null || list == null
                || batch == null || cancelMatching == null || series == null) {
            throw new IllegalArgumentException("every owner use case is needed");
        }
    }

    /** All nine from one service that implements them (e.g. {@code OwnerMessagesService}). */
    public static <T extends ScheduleMessageUseCase & ReviseMessageUseCase & CancelMessageUseCase & SendNowUseCase
            & GetMessageUseCase & ListMessagesUseCase & ScheduleBatchUseCase & CancelMatchingUseCase
            & SeriesSummaryUseCase> OwnerUseCases of(T service) {
        return new OwnerUseCases(service, service, service, service, service, service, service, service, service);
    }
}
