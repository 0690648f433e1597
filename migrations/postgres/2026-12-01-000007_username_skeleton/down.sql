DROP INDEX accounts_username_skeleton;
ALTER TABLE accounts DROP COLUMN username_skeleton;
