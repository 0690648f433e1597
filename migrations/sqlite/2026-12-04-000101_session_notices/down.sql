-- PostgreSQL announces token-generation changes to the other nodes (a trigger); the embedded
-- SQLite database serves one node, which knows its own changes. Nothing to do here.
SELECT 1;
