package buzz.scheduled.domain.schedule;

/** The result of the admission rules that need no I/O. */
public sealed interface AdmissionVerdict {
    /** Every rule passed. */
    record Admitted(Admission admission) implements AdmissionVerdict {
    }

    /** The first rule that failed, in the admission order of docs/openapi.yaml. */
    record Refused(Refusal refusal) implements AdmissionVerdict {
    }
}
