package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.DeleteChannelUseCase;
import buzz.scheduled.application.port.in.PurgeMessagesUseCase;
import buzz.scheduled.application.port.in.RemoveMemberUseCase;
import buzz.scheduled.application.port.in.ReservationsUseCase;

/** The use cases the operator routes call (docs/scheduled-messages.md §5, §6; docs/openapi.yaml). */
public record OperatorUseCases(ReservationsUseCase reservations, DeleteChannelUseCase deleteChannel,
                               RemoveMemberUseCase removeMember, PurgeMessagesUseCase purge) {
    public OperatorUseCases {
        if (reservations == null || deleteChannel == null || removeMember == null || purge == null) {
            throw new IllegalArgumentException("every operator use case is needed");
        }
    }

    /** Deletion and purges from one service (e.g. {@code DeletionService}) plus the reservations. */
    public static <T extends DeleteChannelUseCase & RemoveMemberUseCase & PurgeMessagesUseCase> OperatorUseCases of(
            ReservationsUseCase reservations, T deletion) {
        return new OperatorUseCases(reservations, deletion, deletion, deletion);
    }
}
