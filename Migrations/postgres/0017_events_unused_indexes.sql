-- As SQLite's 0017: the events' indexes only the scanning reports read, now that every report is
-- read from the rollups (a context-filtered report scans through events_by_hour).
DROP INDEX events_funnel;
DROP INDEX events_by_experiment;
