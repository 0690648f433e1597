DROP INDEX ladder_stats_rating;
ALTER TABLE queue_entries DROP COLUMN last_opponent;
ALTER TABLE ladder_results DROP COLUMN rd;
ALTER TABLE ladder_results DROP COLUMN rating;
