ALTER TABLE rooms DROP COLUMN live_entry;
