-- Private games stay private (issue 27 §5): `public` says whether anyone may watch a game and read
-- its record (ranked games and the games of public casual rooms) or only its players (private
-- rooms, practice). Games stored before this column are public only when ranked: a casual game's
-- room is not known any more, so it is kept private.
ALTER TABLE games ADD COLUMN public BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE games SET public = TRUE WHERE kind IN ('ranked', 'ranked_dual');
-- WebSocket tickets (issue 27 §6): `POST /api/ws/ticket` issues a random ticket (kept only as its
-- SHA-256) that opens one socket within 30 s (`/api/ws?ticket=`), so that no access token travels
-- in a URL. In the database so that any node of a cluster accepts a ticket another one issued.
CREATE TABLE ws_tickets (
    ticket_hash TEXT PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    -- the access token's expiry (Unix seconds) and token generation: the socket lives no longer
    -- than the token, and a ticket of a session that ended since is refused
    token_exp BIGINT NOT NULL,
    token_gen BIGINT NOT NULL,
    expires_at TIMESTAMP NOT NULL
);
CREATE INDEX ws_tickets_expiry ON ws_tickets(expires_at);
