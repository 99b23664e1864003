-- Who published a version and why: a note given with the publish (or rollback) and the id of the
-- key that published it (NULL for versions published before this migration and for the CLI).
ALTER TABLE paywall_versions ADD COLUMN note TEXT CHECK (note IS NULL OR char_length(note) BETWEEN 1 AND 500);
ALTER TABLE paywall_versions ADD COLUMN published_by TEXT;
