package buzz.scheduled.adapters.postgres;

import static buzz.scheduled.adapters.postgres.jooq.Tables.SCHEDULED_MESSAGE;

import buzz.scheduled.application.port.out.DeliveryNotes;
import buzz.scheduled.domain.schedule.ScheduleId;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * Writes {@code scheduled_message.last_error} (V5) for the operator's view: one single-row update by primary key,
 * fenced by revision, that changes no state and so wakes no listener.
 */
public final class PostgresDeliveryNotes implements DeliveryNotes {

    private final DSLContext dsl;

    /** Over {@code dataSource} (a pool; each call borrows one connection). */
    public PostgresDeliveryNotes(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("delivery notes need a data source");
        }
        this.dsl = DSL.using(dataSource, SQLDialect.POSTGRES, new Settings().withExecuteLogging(false));
    }

    @Override
    public void note(ScheduleId id, int revision, String detail) {
        if (id == null || detail == null) {
            throw new IllegalArgumentException("a delivery note needs an id and a detail");
        }
        String kept = detail.length() > MAX_LENGTH ? detail.substring(0, MAX_LENGTH) : detail;
        dsl.update(SCHEDULED_MESSAGE)
                .set(SCHEDULED_MESSAGE.LAST_ERROR, kept)
                .where(SCHEDULED_MESSAGE.ID.eq(id.value()).and(SCHEDULED_MESSAGE.REVISION.eq(revision)))
                .execute();
    }
}
