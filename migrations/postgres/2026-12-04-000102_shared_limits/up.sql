-- Limits that hold for the whole cluster (issue 27 §3): every node counts in these tables when
-- cluster mode is on (one node alone counts in memory).
-- A sliding window of events per (kind, key): failed logins, login attempts, registrations,
-- guest sessions, wrong invite codes. Old rows are purged by housekeeping.
CREATE TABLE limit_events (
    id BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    at TIMESTAMP NOT NULL
);
CREATE INDEX limit_events_window ON limit_events (kind, key, at);
-- What each node holds for an account or a client address: its open WebSockets (kind `socket`,
-- place = connection id) and its rooms and practice games (kind `room`, place = room id). A node
-- counts its own from memory and the other live nodes' from here.
CREATE TABLE held_places (
    kind TEXT NOT NULL,
    node_id TEXT NOT NULL,
    place TEXT NOT NULL,
    account_id BIGINT NOT NULL,
    ip TEXT,
    PRIMARY KEY (kind, node_id, place)
);
CREATE INDEX held_places_account ON held_places (kind, account_id);
CREATE INDEX held_places_ip ON held_places (kind, ip);
