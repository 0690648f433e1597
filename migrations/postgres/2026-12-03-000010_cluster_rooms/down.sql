DROP INDEX rooms_invite;
DROP INDEX rooms_node;
DROP TABLE rooms;
