-- Hidden Front (issue 20): which game a game row and a saved formation are for. Rows written
-- before it are four-player games. Formation names are unique per account and game (SQLite
-- cannot drop a table constraint: the table is rebuilt).
ALTER TABLE games ADD COLUMN variant TEXT NOT NULL DEFAULT 'four_player';
CREATE TABLE formations_new (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    variant TEXT NOT NULL DEFAULT 'four_player',
    UNIQUE (account_id, variant, name)
);
INSERT INTO formations_new (id, account_id, name, data, created_at)
    SELECT id, account_id, name, data, created_at FROM formations;
DROP TABLE formations;
ALTER TABLE formations_new RENAME TO formations;
