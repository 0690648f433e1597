-- How many players of a rated ladder (hf_ranked) are on its leaderboard (≥ 10 games, RD ≤ 110)
-- with a rating in [bucket, bucket + 1), i.e. floor(rating) = bucket. Maintained in the same
-- transaction as ladder_stats (src/ladder/record.rs), it turns "rank of a player" and "page k of
-- the leaderboard" into a sum over a few thousand buckets plus one short range of the partial
-- index ladder_stats_rating, as ladder_point_counts does for the four-player ladders.
CREATE TABLE ladder_rating_counts (
    ladder TEXT NOT NULL,
    bucket INTEGER NOT NULL,
    n BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (ladder, bucket)
);
INSERT INTO ladder_rating_counts (ladder, bucket, n)
    SELECT ladder, (CASE WHEN rating < CAST(rating AS INTEGER) THEN CAST(rating AS INTEGER) - 1 ELSE CAST(rating AS INTEGER) END), count(*) FROM ladder_stats
    WHERE ladder = 'hf_ranked' AND games >= 10 AND rd <= 110
    GROUP BY ladder, (CASE WHEN rating < CAST(rating AS INTEGER) THEN CAST(rating AS INTEGER) - 1 ELSE CAST(rating AS INTEGER) END);
