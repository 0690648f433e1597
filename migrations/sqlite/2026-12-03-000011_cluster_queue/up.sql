-- Cluster mode (issue 18): the ranked queues shared by every node (src/ladder/shared.rs). A single
-- node keeps its queues in memory and leaves these tables empty.

-- which node has a socket of which account, renewed by that node every ladder tick
CREATE TABLE presence (
    account_id BIGINT NOT NULL,
    node_id TEXT NOT NULL,
    seen_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, node_id)
);
-- a waiting player (proposal_id NULL) or one of a proposed match
CREATE TABLE queue_entries (
    account_id BIGINT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    ladder TEXT NOT NULL,
    username TEXT NOT NULL,
    ip TEXT,
    rating DOUBLE NOT NULL,
    rd DOUBLE NOT NULL,
    volatility DOUBLE NOT NULL,
    since TIMESTAMP NOT NULL,
    offline_since TIMESTAMP,
    proposal_id BIGINT,
    accepted BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX queue_entries_ladder ON queue_entries(ladder, since);
CREATE INDEX queue_entries_proposal ON queue_entries(proposal_id);
-- a match proposed to its players (open), or accepted by all and its game being created (starting)
CREATE TABLE queue_proposals (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ladder TEXT NOT NULL,
    seats TEXT NOT NULL,
    state TEXT NOT NULL,
    deadline TIMESTAMP NOT NULL
);
-- the last match of each account: its game, owner node and seats
CREATE TABLE queue_matches (
    account_id BIGINT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    ladder TEXT NOT NULL,
    game_id BIGINT NOT NULL,
    room TEXT NOT NULL,
    node_id TEXT NOT NULL,
    seats TEXT NOT NULL,
    at TIMESTAMP NOT NULL
);
-- proposals declined or left unanswered, and the queue cooldowns they earned
CREATE TABLE queue_no_shows (
    account_id BIGINT NOT NULL,
    at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, at)
);
CREATE TABLE queue_cooldowns (
    account_id BIGINT PRIMARY KEY,
    until TIMESTAMP NOT NULL
);
