package buzz.scheduled.adapters.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.SQLDialect;
import org.jooq.conf.ParamType;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * EXPLAIN of a statement the way production runs it once pgjdbc has prepared it on the server: with bind
 * parameters, under {@code plan_cache_mode = force_generic_plan}, so a plan that only works when the planner
 * sees the bound values (a partial index matched by a bound {@code state}, say) shows up as the scan it is.
 */
final class GenericPlan {
    private static final DSLContext RENDER = DSL.using(SQLDialect.POSTGRES,
            new Settings().withParamType(ParamType.INDEXED));
    private static final DSLContext INLINE = DSL.using(SQLDialect.POSTGRES);

    private GenericPlan() {
    }

    /** The generic plan of {@code query}, one line per plan row. */
    static String explain(DataSource dataSource, Query query) throws SQLException {
        String arguments = query.getBindValues().stream()
                .map(value -> INLINE.renderInlined(DSL.inline(value)))
                .collect(Collectors.joining(", "));
        return explain(dataSource, RENDER.render(query), arguments);
    }

    /**
     * The generic plan of a plain JDBC statement.
     *
     * @param sql       the statement with {@code ?} placeholders, as the store sends it
     * @param arguments one SQL literal per placeholder, comma-separated (e.g. {@code 60000000, 100})
     */
    static String explain(DataSource dataSource, String sql, String arguments) throws SQLException {
        return explainNumbered(dataSource, numbered(sql), arguments);
    }

    private static String explainNumbered(DataSource dataSource, String sql, String arguments) throws SQLException {
        List<String> plan = new ArrayList<>();
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            try {
                statement.execute("SET LOCAL plan_cache_mode = force_generic_plan");
                statement.execute("PREPARE generic_plan_probe AS " + sql);
                try (ResultSet rs = statement.executeQuery("EXPLAIN EXECUTE generic_plan_probe"
                        + (arguments.isEmpty() ? "" : "(" + arguments + ")"))) {
                    while (rs.next()) {
                        plan.add(rs.getString(1));
                    }
                }
            } finally {
                connection.rollback();
                statement.execute("DEALLOCATE ALL");
            }
        }
        return String.join("\n", plan);
    }

    /** {@code ?} placeholders (outside quoted literals) as PREPARE's {@code $1, $2, …}. */
    private static String numbered(String sql) {
        StringBuilder out = new StringBuilder(sql.length() + 16);
        boolean quoted = false;
        int next = 1;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\'') {
                quoted = !quoted;
            }
            if (c == '?' && !quoted) {
                out.append('$').append(next++);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
