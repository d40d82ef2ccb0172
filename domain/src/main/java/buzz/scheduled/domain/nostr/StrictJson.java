package buzz.scheduled.domain.nostr;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON reader (RFC 8259 grammar) for text that meets the wire, and a writer with NIP-01 string escaping.
 *
 * <p>Stricter than the RFC where signed Nostr data needs it: duplicate object keys are refused (naming the key),
 * numbers must be integers that fit a {@code long} (no fraction, no exponent: {@code 1.0} and {@code 1e9} are
 * refused), strings must be well-formed Unicode (a lone surrogate, escaped like <code>&#92;ud800</code> or raw, is
 * refused), nesting is limited to {@value #MAX_DEPTH} levels, and nothing but whitespace may follow the value.
 *
 * <p>Values come back as {@code Map<String, Object>} (key order kept), {@code List<Object>}, {@link String},
 * {@link Long}, {@link Boolean} and {@code null} (JSON null; use {@code containsKey} to tell it from an absent
 * key). Collections are unmodifiable. Every refusal names what is wrong and the character offset.
 */
public final class StrictJson {

    /** Deepest nesting of arrays and objects accepted. */
    public static final int MAX_DEPTH = 64;

    /** The outcome of parsing: a value, or the reason the text was refused. */
    public sealed interface Parsed permits Parsed.Value, Parsed.Malformed {

        /** The text was acceptable; {@code value} may be {@code null} for the text {@code null}. */
        record Value(Object value) implements Parsed {
        }

        /** The text was refused; {@code reason} is a sentence naming the problem and its offset. */
        record Malformed(String reason) implements Parsed {
            public Malformed {
                if (reason == null || reason.isBlank()) {
                    throw new IllegalArgumentException("reason is missing");
                }
            }
        }
    }

    private final String text;
    private int pos;

    private StrictJson(String text) {
        this.text = text;
    }

    /** Parses JSON text (a whole document: one value, optional surrounding whitespace). */
    public static Parsed parse(String text) {
        if (text == null) {
            return new Parsed.Malformed("input is missing");
        }
        try {
            StrictJson parser = new StrictJson(text);
            parser.skipWhitespace();
            if (parser.pos == text.length()) {
                return new Parsed.Malformed("input is empty");
            }
            Object value = parser.readValue(0);
            parser.skipWhitespace();
            if (parser.pos != text.length()) {
                return new Parsed.Malformed("unexpected text after the JSON value at offset " + parser.pos);
            }
            return new Parsed.Value(value);
        } catch (Refusal refusal) {
            return new Parsed.Malformed(refusal.getMessage());
        }
    }

    /** Parses JSON given as bytes; the bytes must be well-formed UTF-8 (no overlong forms, no encoded surrogates). */
    public static Parsed parse(byte[] utf8) {
        if (utf8 == null) {
            return new Parsed.Malformed("input is missing");
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer bytes = ByteBuffer.wrap(utf8);
        try {
            return parse(decoder.decode(bytes).toString());
        } catch (MalformedInputException e) {
            return new Parsed.Malformed("input is not valid UTF-8 at byte " + bytes.position());
        } catch (CharacterCodingException e) {
            return new Parsed.Malformed("input is not valid UTF-8");
        }
    }

    /**
     * Writes a value as compact JSON: {@code Map} (string keys, iteration order) as an object, {@code List} as an
     * array, {@link String} with NIP-01 escaping, {@link Long}/{@link Integer}/{@link Short}/{@link Byte} as
     * integers, {@link Boolean}, and {@code null}.
     *
     * @throws IllegalArgumentException on any other type, a non-string key, a lone surrogate, or nesting deeper
     *                                  than {@value #MAX_DEPTH}
     */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(out, value, 0);
        return out.toString();
    }

    private static void write(StringBuilder out, Object value, int depth) {
        switch (value) {
            case null -> out.append("null");
            case String s -> JsonText.appendQuoted(out, s);
            case Long n -> out.append(n.longValue());
            case Integer n -> out.append(n.intValue());
            case Short n -> out.append(n.shortValue());
            case Byte n -> out.append(n.byteValue());
            case Boolean b -> out.append(b.booleanValue());
            case Map<?, ?> map -> {
                requireDepth(depth);
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    if (!(entry.getKey() instanceof String key)) {
                        throw new IllegalArgumentException("JSON object keys must be strings, got " + entry.getKey());
                    }
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    JsonText.appendQuoted(out, key);
                    out.append(':');
                    write(out, entry.getValue(), depth + 1);
                }
                out.append('}');
            }
            case List<?> list -> {
                requireDepth(depth);
                out.append('[');
                for (int i = 0; i < list.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    write(out, list.get(i), depth + 1);
                }
                out.append(']');
            }
            default -> throw new IllegalArgumentException(
                    "cannot write a " + value.getClass().getName() + " as strict JSON");
        }
    }

    private static void requireDepth(int depth) {
        if (depth >= MAX_DEPTH) {
            throw new IllegalArgumentException("nesting deeper than " + MAX_DEPTH);
        }
    }

    /** The JSON type name of a parsed value, for error messages ("a string", "null", "an array"...). */
    public static String describe(Object value) {
        return switch (value) {
            case null -> "null";
            case String s -> "a string";
            case Long n -> "an integer";
            case Boolean b -> "a boolean";
            case Map<?, ?> m -> "an object";
            case List<?> l -> "an array";
            default -> "a " + value.getClass().getSimpleName();
        };
    }

    // ---- reading ----

    private Object readValue(int depth) {
        if (pos >= text.length()) {
            throw new Refusal("unexpected end of input");
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> readObject(depth + 1);
            case '[' -> readArray(depth + 1);
            case '"' -> readString();
            case 't' -> readLiteral("true", Boolean.TRUE);
            case 'f' -> readLiteral("false", Boolean.FALSE);
            case 'n' -> readLiteral("null", null);
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    yield readNumber();
                }
                throw unexpected();
            }
        };
    }

    private Map<String, Object> readObject(int depth) {
        requireDepthWhileReading(depth);
        pos++; // '{'
        Map<String, Object> members = new LinkedHashMap<>();
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            return Collections.unmodifiableMap(members);
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') {
                throw pos >= text.length()
                        ? new Refusal("unexpected end of input inside an object")
                        : new Refusal("expected a string key at offset " + pos + ", got " + quoteChar(peek()));
            }
            int keyOffset = pos;
            String key = readString();
            if (members.containsKey(key)) {
                throw new Refusal("duplicate key \"" + key + "\" at offset " + keyOffset);
            }
            skipWhitespace();
            expect(':');
            skipWhitespace();
            members.put(key, readValue(depth));
            skipWhitespace();
            char next = peek();
            if (next == ',') {
                pos++;
            } else if (next == '}') {
                pos++;
                return Collections.unmodifiableMap(members);
            } else {
                throw pos >= text.length()
                        ? new Refusal("unexpected end of input inside an object")
                        : new Refusal("expected ',' or '}' at offset " + pos + ", got " + quoteChar(next));
            }
        }
    }

    private List<Object> readArray(int depth) {
        requireDepthWhileReading(depth);
        pos++; // '['
        List<Object> elements = new ArrayList<>();
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            return Collections.unmodifiableList(elements);
        }
        while (true) {
            skipWhitespace();
            elements.add(readValue(depth));
            skipWhitespace();
            char next = peek();
            if (next == ',') {
                pos++;
            } else if (next == ']') {
                pos++;
                return Collections.unmodifiableList(elements);
            } else {
                throw pos >= text.length()
                        ? new Refusal("unexpected end of input inside an array")
                        : new Refusal("expected ',' or ']' at offset " + pos + ", got " + quoteChar(next));
            }
        }
    }

    private void requireDepthWhileReading(int depth) {
        if (depth > MAX_DEPTH) {
            throw new Refusal("nesting deeper than " + MAX_DEPTH + " at offset " + pos);
        }
    }

    private String readString() {
        int start = pos;
        pos++; // opening quote
        StringBuilder out = null;
        int runStart = pos;
        while (true) {
            if (pos >= text.length()) {
                throw new Refusal("unterminated string starting at offset " + start);
            }
            char c = text.charAt(pos);
            if (c == '"') {
                String value = out == null
                        ? text.substring(runStart, pos)
                        : out.append(text, runStart, pos).toString();
                pos++;
                int lone = JsonText.indexOfLoneSurrogate(value);
                if (lone >= 0) {
                    throw new Refusal("lone surrogate \\u" + Integer.toHexString(value.charAt(lone))
                            + " in the string starting at offset " + start
                            + " (not valid Unicode, it has no UTF-8 form)");
                }
                return value;
            }
            if (c < 0x20) {
                throw new Refusal("unescaped control character U+" + String.format("%04X", (int) c)
                        + " in a string at offset " + pos);
            }
            if (c == '\\') {
                if (out == null) {
                    out = new StringBuilder();
                }
                out.append(text, runStart, pos);
                out.append(readEscape());
                runStart = pos;
            } else {
                pos++;
            }
        }
    }

    private char readEscape() {
        int escapeOffset = pos;
        pos++; // backslash
        if (pos >= text.length()) {
            throw new Refusal("unterminated escape at offset " + escapeOffset);
        }
        char c = text.charAt(pos++);
        return switch (c) {
            case '"' -> '"';
            case '\\' -> '\\';
            case '/' -> '/';
            case 'b' -> '\b';
            case 'f' -> '\f';
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'u' -> {
                if (pos + 4 > text.length()) {
                    throw new Refusal("truncated \\u escape at offset " + escapeOffset);
                }
                int code = 0;
                for (int i = 0; i < 4; i++) {
                    int digit = hexValue(text.charAt(pos + i));
                    if (digit < 0) {
                        throw new Refusal("invalid \\u escape at offset " + escapeOffset);
                    }
                    code = code * 16 + digit;
                }
                pos += 4;
                yield (char) code;
            }
            default -> throw new Refusal("invalid escape \\" + c + " at offset " + escapeOffset);
        };
    }

    private Long readNumber() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        if (pos >= text.length() || !isDigit(text.charAt(pos))) {
            throw new Refusal("invalid number at offset " + start + ": a digit must follow '-'");
        }
        if (text.charAt(pos) == '0' && pos + 1 < text.length() && isDigit(text.charAt(pos + 1))) {
            throw new Refusal("invalid number at offset " + start + ": leading zero");
        }
        while (pos < text.length() && isDigit(text.charAt(pos))) {
            pos++;
        }
        int integerEnd = pos;
        boolean fraction = false;
        boolean exponent = false;
        if (peek() == '.') {
            fraction = true;
            pos++;
            int digits = pos;
            while (pos < text.length() && isDigit(text.charAt(pos))) {
                pos++;
            }
            if (pos == digits) {
                throw new Refusal("invalid number at offset " + start + ": a digit must follow '.'");
            }
        }
        if (peek() == 'e' || peek() == 'E') {
            exponent = true;
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            int digits = pos;
            while (pos < text.length() && isDigit(text.charAt(pos))) {
                pos++;
            }
            if (pos == digits) {
                throw new Refusal("invalid number at offset " + start + ": a digit must follow the exponent mark");
            }
        }
        String literal = text.substring(start, pos);
        if (fraction || exponent) {
            String has = fraction && exponent ? "a fraction and an exponent" : fraction ? "a fraction" : "an exponent";
            throw new Refusal("number " + literal + " at offset " + start + " is not an integer: it has " + has
                    + " (only whole numbers without exponent are accepted)");
        }
        try {
            return Long.parseLong(text, start, integerEnd, 10);
        } catch (NumberFormatException e) {
            throw new Refusal("integer " + literal + " at offset " + start + " is out of range (64-bit)");
        }
    }

    private Object readLiteral(String literal, Object value) {
        if (!text.startsWith(literal, pos)) {
            throw unexpected();
        }
        pos += literal.length();
        return value;
    }

    private void expect(char expected) {
        if (peek() != expected) {
            throw pos >= text.length()
                    ? new Refusal("unexpected end of input, expected '" + expected + "'")
                    : new Refusal("expected '" + expected + "' at offset " + pos + ", got " + quoteChar(peek()));
        }
        pos++;
    }

    private Refusal unexpected() {
        return new Refusal("unexpected " + quoteChar(text.charAt(pos)) + " at offset " + pos);
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private void skipWhitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                pos++;
            } else {
                return;
            }
        }
    }

    private static int hexValue(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static String quoteChar(char c) {
        if (c < 0x20 || c > 0x7e) {
            return "character U+" + String.format("%04X", (int) c);
        }
        return "'" + c + "'";
    }

    /** Internal control flow: unwinds the recursive descent; never escapes this class. */
    private static final class Refusal extends RuntimeException {
        Refusal(String message) {
            super(message, null, false, false);
        }
    }
}
