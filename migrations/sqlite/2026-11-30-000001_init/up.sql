CREATE TABLE accounts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    username TEXT NOT NULL,
    username_key TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    is_guest BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP NOT NULL
);

CREATE TABLE refresh_tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    family TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    used_at TIMESTAMP,
    revoked BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX refresh_tokens_family ON refresh_tokens(family);

CREATE TABLE formations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    UNIQUE (account_id, name)
);

CREATE TABLE games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    options TEXT NOT NULL,
    state TEXT NOT NULL,
    deployments TEXT,
    result TEXT,
    created_at TIMESTAMP NOT NULL,
    started_at TIMESTAMP,
    finished_at TIMESTAMP
);
CREATE INDEX games_state ON games(state);

CREATE TABLE game_players (
    game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seat TEXT NOT NULL,
    account_id BIGINT REFERENCES accounts(id),
    bot TEXT,
    escaped BOOLEAN NOT NULL DEFAULT FALSE,
    surrendered BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_players_account ON game_players(account_id, game_id);

CREATE TABLE game_actions (
    game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE TABLE ladder_stats (
    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    ladder TEXT NOT NULL,
    points INTEGER NOT NULL DEFAULT 0,
    games INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0,
    draws INTEGER NOT NULL DEFAULT 0,
    losses INTEGER NOT NULL DEFAULT 0,
    surrenders INTEGER NOT NULL DEFAULT 0,
    escapes INTEGER NOT NULL DEFAULT 0,
    rating DOUBLE NOT NULL DEFAULT 1500,
    rd DOUBLE NOT NULL DEFAULT 350,
    volatility DOUBLE NOT NULL DEFAULT 0.06,
    PRIMARY KEY (account_id, ladder)
);
CREATE INDEX ladder_stats_order ON ladder_stats(ladder, points DESC, wins DESC, escapes ASC, account_id ASC);

CREATE TABLE ladder_results (
    game_id BIGINT NOT NULL REFERENCES games(id),
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    ladder TEXT NOT NULL,
    outcome TEXT NOT NULL,
    points INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, account_id)
);
CREATE INDEX ladder_results_account ON ladder_results(account_id, created_at);
