package buzz.scheduled.adapters.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;

/**
 * Writes an {@link Answer} onto the exchange: status, headers, and the body as JSON ({@code application/json}),
 * as text with its media type, or none. Every problem is counted by its code ({@link RequestMetrics#refusal}).
 */
final class AnswerWriter {
    private final ObjectMapper json = new ObjectMapper();
    private final RequestMetrics metrics;

    AnswerWriter(RequestMetrics metrics) {
        this.metrics = metrics;
    }

    void write(Context ctx, Answer answer) {
        ctx.status(answer.status());
        String contentType = switch (answer) {
            case Answer.Json j -> "application/json";
            case Answer.Problem p -> "application/json";
            case Answer.Text t -> t.contentType();
            case Answer.Empty e -> null;
        };
        if (contentType != null) {
            ctx.contentType(contentType);
        }
        answer.headers().forEach(ctx::header);
        try {
            byte[] bytes = switch (answer) {
                case Answer.Json j -> json.writeValueAsBytes(j.body());
                case Answer.Problem p -> json.writeValueAsBytes(p.body());
                case Answer.Text t -> t.body().getBytes(StandardCharsets.UTF_8);
                case Answer.Empty e -> new byte[0];
            };
            ctx.result(bytes);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("could not write a JSON answer", e);
        }
        if (answer instanceof Answer.Problem problem) {
            metrics.refusal(problem.code());
        }
    }
}
