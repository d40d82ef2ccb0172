package buzz.scheduled.adapters.http;

import buzz.scheduled.domain.nostr.PublicKey;
import java.util.Optional;
import java.util.Set;

/**
 * Who may call the operator routes and what they call (docs/openapi.yaml, tag operator): a NIP-98 authenticated pubkey
 * listed in {@code RELAY_OPERATOR_PUBKEYS}. Anyone else who authenticates gets {@code 403 forbidden}.
 *
 * @param operators the operator pubkeys (may be empty: then every operator request is forbidden)
 * @param useCases  the operator use cases; required when there is an operator
 */
public record OperatorAccess(Set<PublicKey> operators, Optional<OperatorUseCases> useCases) {
    public OperatorAccess {
        if (operators == null || useCases == null) {
            throw new IllegalArgumentException("operator access needs a pubkey set and a use-case option");
        }
        operators = Set.copyOf(operators);
        if (!operators.isEmpty() && useCases.isEmpty()) {
            throw new IllegalArgumentException("RELAY_OPERATOR_PUBKEYS names operators but no operator use cases"
                    + " were given");
        }
    }

    /** Operator routes for {@code operators}. */
    public static OperatorAccess of(Set<PublicKey> operators, OperatorUseCases useCases) {
        return new OperatorAccess(operators, Optional.of(useCases));
    }

    /** No operators: the operator routes exist but forbid everyone. */
    public static OperatorAccess none() {
        return new OperatorAccess(Set.of(), Optional.empty());
    }

    /** Whether {@code pubkey} is an operator. */
    public boolean isOperator(PublicKey pubkey) {
        return operators.contains(pubkey);
    }
}
