package buzz.scheduled.domain.schedule;

/**
 * A revision number of a scheduled message: 1 for the first signed event, one more for every edit.
 *
 * @param number 1 or more
 */
public record Revision(int number) {
    /** The revision a new message starts with. */
    public static final Revision FIRST = new Revision(1);

    public Revision {
        if (number < 1) {
            throw new IllegalArgumentException("revision must be 1 or more, got " + number);
        }
    }

    /** The revision an edit produces. */
    public Revision next() {
        return new Revision(Math.addExact(number, 1));
    }

    @Override
    public String toString() {
        return Integer.toString(number);
    }
}
