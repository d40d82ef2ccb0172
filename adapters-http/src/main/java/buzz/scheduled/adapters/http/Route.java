package buzz.scheduled.adapters.http;

/** A route of the API: method and path template as registered ({@code /v1/scheduled-messages/{id}}). */
public record Route(String method, String path) {
    /** @throws IllegalArgumentException when the method is missing or the path is not an absolute template */
    public Route {
        if (method == null || path == null || !path.startsWith("/")) {
            throw new IllegalArgumentException("a route needs a method and an absolute path template");
        }
    }
}
