-- Access tokens carry the account's token generation (claim "gen"); logging out and changing the
-- password increment it, which refuses every access token issued before (issue 19, finding 2).
ALTER TABLE accounts ADD COLUMN token_generation BIGINT NOT NULL DEFAULT 0;
