-- Hidden Front's rated ladder (issue 29): each applied result keeps the account's rating after
-- the game (the profile's rating history); the queue remembers each entry's last opponent (not
-- paired twice in a row while others wait); the hf_ranked leaderboard reads players with at
-- least 10 games and RD at most 110 by rating through a partial index.
ALTER TABLE ladder_results ADD COLUMN rating DOUBLE PRECISION;
ALTER TABLE ladder_results ADD COLUMN rd DOUBLE PRECISION;
ALTER TABLE queue_entries ADD COLUMN last_opponent BIGINT;
CREATE INDEX ladder_stats_rating ON ladder_stats(ladder, rating DESC, account_id ASC)
    WHERE games >= 10 AND rd <= 110;
