DROP TABLE queue_cooldowns;
DROP TABLE queue_no_shows;
DROP TABLE queue_matches;
DROP TABLE queue_proposals;
DROP INDEX queue_entries_proposal;
DROP INDEX queue_entries_ladder;
DROP TABLE queue_entries;
DROP TABLE presence;
