-- Server-wide settings kept across restarts (e.g. the generated JWT signing secret).
CREATE TABLE server_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
