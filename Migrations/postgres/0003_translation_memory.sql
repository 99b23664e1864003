-- What each translation of the draft was made from (locale → text path → the default locale's text
-- when the translation was written), so a changed source marks its translations stale. NULL for
-- drafts saved before this migration: their translations are taken as up to date on the next save.
ALTER TABLE paywalls ADD COLUMN translation_sources TEXT;
