DROP TABLE ladder_point_counts;
