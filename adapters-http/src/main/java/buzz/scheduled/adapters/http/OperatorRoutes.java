package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.DeleteChannelUseCase.ChannelDeleted;
import buzz.scheduled.application.port.in.RemoveMemberUseCase.MemberRemoved;
import buzz.scheduled.application.port.in.ReservationsUseCase.Reservations;
import buzz.scheduled.domain.nostr.PublicKey;
import buzz.scheduled.domain.schedule.Channel;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The operator routes (docs/openapi.yaml, tag operator) after authentication and the operator check: reservations
 * (docs/scheduled-messages.md §5), channel deletion, member removal, owner purge and full purge
 * (docs/scheduled-messages.md §6), each answering a summary of what it did.
 */
final class OperatorRoutes {
    static final String RESERVATIONS = "/v1/reservations";
    static final String CHANNEL_DELETED = "/v1/admin/channels/{channel}/deleted";
    static final String MEMBER_REMOVED = "/v1/admin/channels/{channel}/members/{pubkey}/removed";
    static final String OWNER = "/v1/admin/owners/{pubkey}";
    /** Full purge; needs {@code ?confirm=all} so a mistyped owner purge cannot become one. */
    static final String ALL_MESSAGES = "/v1/admin/scheduled-messages";


    private final OperatorUseCases useCases;

    OperatorRoutes(OperatorUseCases useCases) {
        this.useCases = useCases;
    }

    /** {@code GET /v1/reservations}: {@code {"held_before","overdue","next_due"}} in Unix seconds or null. */
    Answer reservations(OperatorRequest request) {
        Optional<Answer> bad = noQueryNoBody(request, Set.of());
        if (bad.isPresent()) {
            return bad.get();
        }
        Reservations reservations = useCases.reservations().reservations();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("held_before", reservations.heldBefore().map(Instant::getEpochSecond).orElse(null));
        body.put("overdue", reservations.overdue());
        body.put("next_due", reservations.nextDue().map(OperatorRoutes::ceilSeconds).orElse(null));
        return new Answer.Json(200, body, Map.of("Cache-Control", "no-store"));
    }

    /** {@code POST /v1/admin/channels/{channel}/deleted}. */
    Answer channelDeleted(OperatorRequest request) {
        Optional<Answer> bad = noQueryNoBody(request, Set.of());
        if (bad.isPresent()) {
            return bad.get();
        }
        Optional<Channel> channel = channel(request);
        if (channel.isEmpty()) {
            return badChannel(request);
        }
        ChannelDeleted deleted = useCases.deleteChannel().deleteChannel(channel.get());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("channel", channel.get().value());
        body.put("failed", deleted.failed());
        body.put("purged", deleted.purged());
        body.put("in_flight", deleted.inFlight());
        body.put("newly_deleted", deleted.newlyDeleted());
        return new Answer.Json(200, body);
    }

    /** {@code POST /v1/admin/channels/{channel}/members/{pubkey}/removed}. */
    Answer memberRemoved(OperatorRequest request) {
        Optional<Answer> bad = noQueryNoBody(request, Set.of());
        if (bad.isPresent()) {
            return bad.get();
        }
        Optional<Channel> channel = channel(request);
        if (channel.isEmpty()) {
            return badChannel(request);
        }
        Optional<PublicKey> member = pubkey(request);
        if (member.isEmpty()) {
            return badPubkey(request);
        }
        MemberRemoved removed = useCases.removeMember().removeMember(channel.get(), member.get());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("channel", channel.get().value());
        body.put("pubkey", member.get().hex());
        body.put("failed", removed.failed());
        body.put("in_flight", removed.inFlight());
        return new Answer.Json(200, body);
    }

    /** {@code DELETE /v1/admin/owners/{pubkey}}: deletes the owner's messages in every state. */
    Answer purgeOwner(OperatorRequest request) {
        Optional<Answer> bad = noQueryNoBody(request, Set.of());
        if (bad.isPresent()) {
            return bad.get();
        }
        Optional<PublicKey> owner = pubkey(request);
        if (owner.isEmpty()) {
            return badPubkey(request);
        }
        int deleted = useCases.purge().purgeOwner(owner.get());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("owner", owner.get().hex());
        body.put("deleted", deleted);
        return new Answer.Json(200, body);
    }

    /** {@code DELETE /v1/admin/scheduled-messages?confirm=all}: deletes every message. */
    Answer purgeAll(OperatorRequest request) {
        Optional<Answer> bad = noQueryNoBody(request, Set.of("confirm"));
        if (bad.isPresent()) {
            return bad.get();
        }
        List<String> confirm = request.query().getOrDefault("confirm", List.of());
        if (!confirm.equals(List.of("all"))) {
            return Answer.Problem.invalidRequest("a full purge deletes every scheduled message of every owner; "
                    + "confirm it with the query ?confirm=all");
        }
        int deleted = useCases.purge().purgeAll();
        return new Answer.Json(200, Map.of("deleted", deleted));
    }

    /** A due time in whole seconds, never earlier than the instant (so "not before" stays true). */
    private static long ceilSeconds(Instant instant) {
        return instant.getNano() == 0 ? instant.getEpochSecond() : instant.getEpochSecond() + 1;
    }

    static Optional<Answer> noQueryNoBody(OperatorRequest request, Set<String> allowedQuery) {
        for (String name : request.query().keySet()) {
            if (!allowedQuery.contains(name)) {
                return Optional.of(Answer.Problem.invalidRequest("unknown query parameter \"" + name + "\""
                        + (allowedQuery.isEmpty() ? "; this route takes none" : "; allowed: " + allowedQuery)));
            }
        }
        for (byte b : request.body()) {
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                return Optional.of(Answer.Problem.invalidRequest("this route takes no request body"));
            }
        }
        return Optional.empty();
    }

    private static Optional<Channel> channel(OperatorRequest request) {
        String value = request.pathParams().get("channel");
        if (value == null || value.isEmpty() || value.length() > Channel.MAX_LENGTH) {
            return Optional.empty();
        }
        return Optional.of(new Channel(value));
    }

    private static Answer badChannel(OperatorRequest request) {
        return Answer.Problem.invalidRequest("the channel in the path must be 1 to " + Channel.MAX_LENGTH
                + " characters, got \"" + request.pathParams().get("channel") + "\"");
    }

    private static Optional<PublicKey> pubkey(OperatorRequest request) {
        return PubkeyParameter.parse(request.pathParams().get("pubkey"));
    }

    private static Answer badPubkey(OperatorRequest request) {
        return Answer.Problem.invalidRequest("the pubkey in the path must be " + PubkeyParameter.EXPECTED + ", got \""
                + request.pathParams().get("pubkey") + "\"");
    }
}
