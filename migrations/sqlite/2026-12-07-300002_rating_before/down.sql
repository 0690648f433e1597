ALTER TABLE ladder_results DROP COLUMN rating_before;
