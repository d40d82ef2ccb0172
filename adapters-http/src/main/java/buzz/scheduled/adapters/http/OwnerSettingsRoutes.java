package buzz.scheduled.adapters.http;

import buzz.scheduled.application.port.in.OwnerSettingsUseCase;
import buzz.scheduled.application.port.in.OwnerSettingsUseCase.OwnerSettings;
import buzz.scheduled.application.port.in.OwnerSettingsUseCase.SettingsResult;
import buzz.scheduled.domain.notice.NoticeChoice;
import buzz.scheduled.domain.nostr.StrictJson;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * {@code GET} and {@code PUT /v1/owner/settings} (docs/openapi.yaml {@code getOwnerSettings}, {@code putOwnerSettings}):
 * the authenticated owner's settings, {@code {"notices":"none"|"failures"|"all","notices_enabled":bool}}. A
 * {@code PUT} body is exactly {@code {"notices":"…"}}; anything else is {@code 400 invalid_request}, and nothing is
 * stored. Without the settings use case (an API built without notices) both answer {@code 503 unavailable}.
 */
final class OwnerSettingsRoutes {
    /** The path of the owner's settings. */
    static final String PATH = "/v1/owner/settings";
    private static final String CHOICES = Arrays.stream(NoticeChoice.values()).map(NoticeChoice::wireName)
            .collect(Collectors.joining(", "));

    private final HttpSettings settings;
    private volatile Optional<OwnerSettingsUseCase> useCase = Optional.empty();

    OwnerSettingsRoutes(HttpSettings settings) {
        this.settings = settings;
    }

    /** Serves the routes from {@code settingsUseCase} from now on. */
    void use(OwnerSettingsUseCase settingsUseCase) {
        this.useCase = Optional.of(settingsUseCase);
    }

    /** {@code GET /v1/owner/settings}. */
    Answer get(OwnerRequest request) {
        return useCase.<Answer>map(settings -> new Answer.Json(200, json(settings.settings(request.owner()))))
                .orElseGet(this::unavailable);
    }

    /** {@code PUT /v1/owner/settings} body {@code {"notices":"…"}}. */
    Answer put(OwnerRequest request) {
        if (useCase.isEmpty()) {
            return unavailable();
        }
        Optional<Answer> badType = OwnerRoutes.contentType(request);
        if (badType.isPresent()) {
            return badType.get();
        }
        Object json;
        switch (StrictJson.parse(request.body())) {
            case StrictJson.Parsed.Malformed malformed -> {
                return Answer.Problem.invalidRequest("the request body is not valid JSON: " + malformed.reason());
            }
            case StrictJson.Parsed.Value value -> json = value.value();
        }
        if (!(json instanceof Map<?, ?> object) || object.size() != 1 || !object.containsKey("notices")) {
            return Answer.Problem.invalidRequest("the request body must be {\"notices\":\"<choice>\"} with one of "
                    + CHOICES);
        }
        Optional<NoticeChoice> choice = object.get("notices") instanceof String name ? NoticeChoice.fromWireName(name)
                : Optional.empty();
        if (choice.isEmpty()) {
            return Answer.Problem.invalidRequest("notices must be one of " + CHOICES + ", got "
                    + StrictJson.write(object.get("notices")));
        }
        return switch (useCase.get().changeNotices(request.owner(), choice.get())) {
            case SettingsResult.Changed changed -> new Answer.Json(200, json(changed.settings()));
            case SettingsResult.RateLimited limited -> Answer.Problem.rateLimited(limited.message(),
                    limited.retryAfter());
        };
    }

    private Answer unavailable() {
        return Answer.Problem.unavailable("owner settings are not served by this server",
                settings.retryAfter().toSeconds());
    }

    private static Map<String, Object> json(OwnerSettings ownerSettings) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("notices", ownerSettings.notices().wireName());
        body.put("notices_enabled", ownerSettings.noticesEnabled());
        return body;
    }
}
