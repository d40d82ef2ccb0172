package buzz.scheduled.application.service;

import buzz.scheduled.application.port.in.ReservationsUseCase;
import buzz.scheduled.application.port.in.ReservationsUseCase.Reservations;
import buzz.scheduled.application.port.out.ChannelAdministration;

/** Reads the late-delivery reservation figures (docs/scheduled-messages.md §5) from storage, on the database clock. */
public final class ReservationsService implements ReservationsUseCase {

    private final ChannelAdministration administration;

    public ReservationsService(ChannelAdministration administration) {
        if (administration == null) {
            throw new IllegalArgumentException("reservations need the channel administration port");
        }
        this.administration = administration;
    }

    @Override
    public Reservations reservations() {
        return administration.reservations();
    }
}
