DROP TABLE held_places;
DROP TABLE limit_events;
