-- Usernames (issue 19, finding 5): username_key becomes NFKC + full case folding, and the UTS #39
-- confusable skeleton of that key is unique too. Existing rows get both computed by the server at
-- start (db::accounts::backfill_username_keys): SQL cannot compute them.
ALTER TABLE accounts ADD COLUMN username_skeleton TEXT;
CREATE UNIQUE INDEX accounts_username_skeleton ON accounts (username_skeleton);
