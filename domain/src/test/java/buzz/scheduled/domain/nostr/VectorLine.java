package buzz.scheduled.domain.nostr;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One line of a JSONL vector file, kept as the raw text of each top-level member. The raw text matters: some
 * {@code event} members hold values a strict reader must refuse ({@code 1767225600.5}), so the line cannot be
 * parsed as a whole by the reader under test; each member is cut out verbatim and fed to it separately.
 */
public record VectorLine(int lineNumber, Map<String, String> rawMembers) {

    /** Reads a test resource, splitting on '\n' only (lines hold raw U+2028, which is not a line break here). */
    public static List<VectorLine> readAll(String resource) {
        String text;
        try (InputStream in = VectorLine.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("test resource " + resource + " is missing");
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<VectorLine> lines = new ArrayList<>();
        String[] split = text.split("\n", -1);
        for (int i = 0; i < split.length; i++) {
            if (!split[i].isBlank()) {
                lines.add(new VectorLine(i + 1, members(split[i])));
            }
        }
        return lines;
    }

    /** The raw JSON text of member {@code key}, if present. */
    public Optional<String> raw(String key) {
        return Optional.ofNullable(rawMembers.get(key));
    }

    /** Member {@code key} parsed strictly as a string. */
    public String string(String key) {
        Object value = value(key);
        if (!(value instanceof String s)) {
            throw new IllegalStateException("line " + lineNumber + ": " + key + " is not a string");
        }
        return s;
    }

    /** Member {@code key} parsed strictly as a boolean. */
    public boolean bool(String key) {
        return (Boolean) value(key);
    }

    /** Member {@code key} parsed strictly; null when absent or JSON null. */
    public Object value(String key) {
        String raw = rawMembers.get(key);
        if (raw == null) {
            return null;
        }
        return switch (StrictJson.parse(raw)) {
            case StrictJson.Parsed.Value v -> v.value();
            case StrictJson.Parsed.Malformed m ->
                    throw new IllegalStateException("line " + lineNumber + ": " + key + ": " + m.reason());
        };
    }

    /** The wire text of the event: {@code event_raw} when the line has one, else the raw {@code event} member. */
    public String eventWireText() {
        String eventRaw = rawMembers.get("event_raw");
        if (eventRaw != null && !eventRaw.equals("null")) {
            return string("event_raw");
        }
        return rawMembers.get("event");
    }

    public String name() {
        return string("name");
    }

    @Override
    public String toString() {
        return rawMembers.containsKey("name") ? name() : "line " + lineNumber;
    }

    private static Map<String, String> members(String line) {
        Map<String, String> members = new LinkedHashMap<>();
        Scanner scanner = new Scanner(line);
        scanner.skipWhitespace();
        scanner.expect('{');
        scanner.skipWhitespace();
        if (scanner.peek() == '}') {
            return members;
        }
        while (true) {
            scanner.skipWhitespace();
            int keyStart = scanner.pos;
            scanner.skipString();
            String key = (String) ((StrictJson.Parsed.Value) StrictJson.parse(line.substring(keyStart, scanner.pos)))
                    .value();
            scanner.skipWhitespace();
            scanner.expect(':');
            scanner.skipWhitespace();
            int valueStart = scanner.pos;
            scanner.skipValue();
            members.put(key, line.substring(valueStart, scanner.pos));
            scanner.skipWhitespace();
            char next = scanner.line.charAt(scanner.pos++);
            if (next == '}') {
                return members;
            }
            if (next != ',') {
                throw new IllegalStateException("unexpected '" + next + "' in vector line");
            }
        }
    }

    /** Finds value boundaries only (brackets and strings); validation is the reader's job, not the fixture's. */
    private static final class Scanner {
        private final String line;
        private int pos;

        Scanner(String line) {
            this.line = line;
        }

        char peek() {
            return line.charAt(pos);
        }

        void expect(char c) {
            if (line.charAt(pos) != c) {
                throw new IllegalStateException("expected '" + c + "' at " + pos);
            }
            pos++;
        }

        void skipWhitespace() {
            while (pos < line.length() && Arrays.asList(' ', '\t', '\r').contains(line.charAt(pos))) {
                pos++;
            }
        }

        void skipString() {
            expect('"');
            while (line.charAt(pos) != '"') {
                pos += line.charAt(pos) == '\\' ? 2 : 1;
            }
            pos++;
        }

        void skipValue() {
            char c = peek();
            if (c == '"') {
                skipString();
            } else if (c == '{' || c == '[') {
                int depth = 0;
                do {
                    char d = peek();
                    if (d == '"') {
                        skipString();
                        continue;
                    }
                    if (d == '{' || d == '[') {
                        depth++;
                    } else if (d == '}' || d == ']') {
                        depth--;
                    }
                    pos++;
                } while (depth > 0);
            } else {
                while (pos < line.length() && ",}] \t\r".indexOf(line.charAt(pos)) < 0) {
                    pos++;
                }
            }
        }
    }
}
