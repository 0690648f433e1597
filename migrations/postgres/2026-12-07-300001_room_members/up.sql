-- Issue 39 §1-2: a private room (or practice game) is named to nobody but its members. Its row
-- holds the accounts that may enter it (host, seated people, those admitted by its invite code)
-- as a JSON array; NULL for a room open to all.
ALTER TABLE rooms ADD COLUMN members TEXT;
