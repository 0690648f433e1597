CREATE TABLE formations_old (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    UNIQUE (account_id, name)
);
INSERT INTO formations_old (id, account_id, name, data, created_at)
    SELECT id, account_id, name, data, created_at FROM formations WHERE variant = 'four_player';
DROP TABLE formations;
ALTER TABLE formations_old RENAME TO formations;
ALTER TABLE games DROP COLUMN variant;
