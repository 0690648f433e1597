-- Cluster-wide limits live in PostgreSQL (cluster mode); the embedded SQLite database serves one
-- node, which counts in memory. Nothing to do here.
SELECT 1;
