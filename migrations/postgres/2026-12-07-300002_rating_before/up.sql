-- Issue 38 §8: a rated result shows the new rating and its change (1338 (−12)): each applied
-- result keeps the rating the account had before the game too.
ALTER TABLE ladder_results ADD COLUMN rating_before DOUBLE PRECISION;
