package buzz.scheduled.application.port.in;

import buzz.scheduled.application.port.out.ChannelAdministration.Reservations;

/**
 * The late-delivery reservation (SPEC §3.10): {@code held_before} is the oldest due time of a non-terminal
 * message that is already due, so a relay serving reads from replicas knows which time range an overdue
 * scheduled event may still land in.
 */
public interface ReservationsUseCase {

    /** The figures now, on the database clock. */
    Reservations reservations();
}
