DROP INDEX games_owner;
ALTER TABLE games DROP COLUMN lease_until;
ALTER TABLE games DROP COLUMN node_id;
DROP TABLE nodes;
