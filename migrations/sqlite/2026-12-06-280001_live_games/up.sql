-- Issue 28: the lobby lists the games in progress anyone may watch, from every node: the row of
-- such a game (a public casual room's, or a ranked game, now shared too) holds its entry.
ALTER TABLE rooms ADD COLUMN live_entry TEXT;
