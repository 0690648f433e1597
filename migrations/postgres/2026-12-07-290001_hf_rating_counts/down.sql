DROP TABLE ladder_rating_counts;
