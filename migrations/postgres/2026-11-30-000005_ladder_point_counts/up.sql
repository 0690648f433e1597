-- How many ladder_stats rows have each points value, per ladder. Maintained in the same
-- transaction as ladder_stats (src/ladder/record.rs), it turns "rank of a player" and "page k
-- of the leaderboard" into a sum over a few thousand buckets plus one short index range.
CREATE TABLE ladder_point_counts (
    ladder TEXT NOT NULL,
    points INTEGER NOT NULL,
    n BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (ladder, points)
);
