-- Several nodes on one PostgreSQL (issue 18). Each live node has a row, renewed by its heartbeat;
-- each unfinished game has one owner node holding a lease that the owner's heartbeat renews.
-- A game whose lease has run out may be claimed by another node with one conditional UPDATE.
CREATE TABLE nodes (
    id TEXT PRIMARY KEY,
    advertise TEXT NOT NULL,
    started_at TIMESTAMP NOT NULL,
    heartbeat_at TIMESTAMP NOT NULL
);
ALTER TABLE games ADD COLUMN node_id TEXT;
ALTER TABLE games ADD COLUMN lease_until TIMESTAMP;
CREATE INDEX games_owner ON games(node_id) WHERE state IN ('deploying', 'battle');
