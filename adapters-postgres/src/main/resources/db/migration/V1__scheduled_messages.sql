-- placeholder, replaced by the storage work
CREATE TABLE scheduled_message (id uuid PRIMARY KEY);
