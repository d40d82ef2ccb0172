package buzz.scheduled.adapters.postgres;

import buzz.scheduled.application.port.out.OwnerSettingsStore;
import buzz.scheduled.domain.notice.NoticeChoice;
import buzz.scheduled.domain.nostr.PublicKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Owners' settings in PostgreSQL (table {@code owner_settings}, migration V12). A change of notice choice also
 * re-marks the owner's pending messages ({@code notify_published}) in the same transaction, so that from its commit
 * on their publications are queued for a notice exactly when the choice is {@code all}.
 */
public final class PostgresOwnerSettingsStore implements OwnerSettingsStore {
    private static final String READ = "SELECT notices FROM owner_settings WHERE owner = ?";
    private static final String SAVE = """
            INSERT INTO owner_settings (owner, notices, updated_at) VALUES (?, ?, now())
            ON CONFLICT (owner) DO UPDATE SET notices = EXCLUDED.notices, updated_at = now()""";
    private static final String MARK_PENDING = """
            UPDATE scheduled_message SET notify_published = ?
             WHERE owner = ? AND finished_at IS NULL AND notify_published <> ?""";

    private final DataSource dataSource;

    public PostgresOwnerSettingsStore(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("the settings store needs a data source");
        }
        this.dataSource = dataSource;
    }

    @Override
    public Optional<NoticeChoice> notices(PublicKey owner) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement read = connection.prepareStatement(READ)) {
            read.setString(1, owner.hex());
            try (ResultSet row = read.executeQuery()) {
                return row.next() ? NoticeChoice.fromWireName(row.getString(1)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("reading the settings of owner " + owner + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void saveNotices(PublicKey owner, NoticeChoice choice) {
        boolean all = choice == NoticeChoice.ALL;
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement save = connection.prepareStatement(SAVE);
                 PreparedStatement mark = connection.prepareStatement(MARK_PENDING)) {
                save.setString(1, owner.hex());
                save.setString(2, choice.wireName());
                save.executeUpdate();
                mark.setBoolean(1, all);
                mark.setString(2, owner.hex());
                mark.setBoolean(3, all);
                mark.executeUpdate();
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("saving the settings of owner " + owner + " failed: " + e.getMessage(), e);
        }
    }
}
