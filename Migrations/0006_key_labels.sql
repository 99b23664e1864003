-- What a key is for ("iOS app", "backend"), named when it is created and listed with it.
ALTER TABLE api_keys ADD COLUMN label TEXT CHECK (label IS NULL OR length(label) BETWEEN 1 AND 100);
