package buzz.scheduled.adapters.http;

import buzz.scheduled.domain.schedule.OwnerRefusal;
import buzz.scheduled.domain.schedule.Refusal;
import buzz.scheduled.domain.schedule.RefusalCode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** What a route answers: a status, headers and a JSON body, a problem, or text. Written by {@link AnswerWriter}. */
sealed interface Answer {

    /** HTTP status code. */
    int status();

    /** Extra response headers, in order. */
    Map<String, String> headers();

    /** This answer with {@code extra} headers added (replacing any of the same name). */
    default Answer withHeaders(Map<String, String> extra) {
        if (extra.isEmpty()) {
            return this;
        }
        Map<String, String> headers = new LinkedHashMap<>(headers());
        headers.putAll(extra);
        return switch (this) {
            case Json j -> new Json(j.status(), j.body(), headers);
            case Problem p -> new Problem(p.status(), p.code(), p.message(), headers);
            case Text t -> new Text(t.status(), t.contentType(), t.body(), headers);
            case Empty e -> new Empty(e.status(), headers);
        };
    }

    /** A JSON document ({@code Map}/{@code List}/scalars, written with Jackson). */
    record Json(int status, Object body, Map<String, String> headers) implements Answer {
        public Json {
            headers = Map.copyOf(headers);
        }

        Json(int status, Object body) {
            this(status, body, Map.of());
        }
    }

    /** No body (a CORS preflight's {@code 204}). */
    record Empty(int status, Map<String, String> headers) implements Answer {
        public Empty {
            headers = Map.copyOf(headers);
        }
    }

    /** Plain text with a media type (Prometheus metrics, the OpenAPI document). */
    record Text(int status, String contentType, String body, Map<String, String> headers) implements Answer {
        public Text {
            headers = Map.copyOf(headers);
        }
    }

    /**
     * An error: {@code {"error":"<code>","message":"<sentence>"}} (docs/openapi.yaml, schema {@code Error}).
     *
     * @param code    machine-readable error code (the codes of docs/openapi.yaml, plus {@code invalid_request},
     *                {@code unauthorized}, {@code not_found}, {@code feature_disabled}, {@code unavailable}, ...)
     * @param message human sentence saying what is wrong
     */
    record Problem(int status, String code, String message, Map<String, String> headers) implements Answer {
        public Problem {
            if (code == null || code.isBlank() || message == null || message.isBlank()) {
                throw new IllegalArgumentException("a problem needs a code and a message");
            }
            headers = Map.copyOf(headers);
        }

        Problem(int status, String code, String message) {
            this(status, code, message, Map.of());
        }

        /** The body as a JSON object. */
        Map<String, Object> body() {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("error", code);
            body.put("message", message);
            return body;
        }

        static Problem invalidRequest(String message) {
            return new Problem(400, "invalid_request", message);
        }

        static Problem invalidEvent(String message) {
            return new Problem(400, "invalid_event", message);
        }

        static Problem notFound(String message) {
            return new Problem(404, "not_found", message);
        }

        /** {@code 503} with {@code Retry-After} in whole seconds. */
        static Problem unavailable(String message, long retryAfterSeconds) {
            return new Problem(503, "unavailable", message, Map.of("Retry-After", Long.toString(retryAfterSeconds)));
        }

        /**
         * {@code 429 rate_limited}: the owner's write rate is used up; {@code Retry-After} is {@code wait} rounded up
         * to whole seconds (at least 1).
         */
        static Problem rateLimited(String message, Duration wait) {
            long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
            return new Problem(429, "rate_limited", message, Map.of("Retry-After", Long.toString(seconds)));
        }

        /** An admission refusal (the admission order of docs/openapi.yaml) with its status. */
        static Problem refusal(Refusal refusal) {
            return new Problem(status(refusal.code()), refusal.code().wireName(), refusal.message());
        }

        /** A state conflict (docs/openapi.yaml, response {@code StateConflict}): always {@code 409}. */
        static Problem stateConflict(OwnerRefusal refusal, String message) {
            return new Problem(409, refusal.wireName(), message);
        }

        /**
         * The status for an admission refusal: 400 malformed, 403 not allowed for this author or channel, 413 too
         * large, 422 well-formed but not schedulable, 429 a count limit.
         */
        static int status(RefusalCode code) {
            return switch (code) {
                case INVALID_EVENT -> 400;
                case PUBKEY_MISMATCH, IS_ARCHIVED, NOT_IN_CHANNEL, RESTRICTED -> 403;
                case TOO_LARGE -> 413;
                case KIND_NOT_ALLOWED, MISSING_CHANNEL, PROTECTED_EVENT, EXPIRES_BEFORE_DUE, TIME_IN_PAST, TIME_TOO_FAR,
                     POW_TOO_LOW, CHANNEL_NOT_FOUND -> 422;
                case TOO_MANY_PENDING, RESTRICTED_TOO_MANY -> 429;
            };
        }
    }
}
