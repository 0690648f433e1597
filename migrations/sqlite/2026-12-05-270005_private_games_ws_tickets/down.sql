DROP TABLE ws_tickets;
ALTER TABLE games DROP COLUMN public;
