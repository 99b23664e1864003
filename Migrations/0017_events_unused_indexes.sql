-- 0017: the events' indexes that only the scanning reports read. Every report is now read from the
-- rollups (0015); a report with context filters still scans its paywall's events, through
-- events_by_hour (its key starts with app and paywall). events_funnel cost about 45 % of a stored
-- event's index work on SQLite, events_by_experiment another index per experiment event
-- (docs/benchmarks.md, "Indexes the rollups made unused").
DROP INDEX events_funnel;
DROP INDEX events_by_experiment;
