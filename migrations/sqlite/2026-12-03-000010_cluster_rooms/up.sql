-- Several nodes on one PostgreSQL (issue 18): the rooms people may join from any node. Each row
-- is written only by the node that runs the room (`node_id`): a casual room from its creation to
-- its end, a practice game that can be shared by its invite code. `summary` is the lobby's list
-- entry (JSON, no hidden information) of a public waiting room, NULL otherwise. An invite code is
-- kept only as its SHA-256 (`invite_hash`). Rows of nodes whose heartbeat stopped are deleted by
-- the surviving nodes; a single node (cluster mode off) never writes here.
CREATE TABLE rooms (
    id TEXT PRIMARY KEY,
    node_id TEXT NOT NULL,
    game_id BIGINT,
    kind TEXT NOT NULL,
    variant TEXT NOT NULL,
    public BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    seats_filled INTEGER NOT NULL,
    invite_hash TEXT,
    summary TEXT,
    created_ms BIGINT NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX rooms_node ON rooms(node_id);
CREATE INDEX rooms_invite ON rooms(invite_hash);
