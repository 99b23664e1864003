-- As SQLite's 0021. A dense sketch (16 KiB of HyperLogLog registers) that pglz compressed to ~6 KiB
-- cost PostgreSQL about three times as much to read as the same sketch stored whole: it was
-- decompressed on every read, and a report reads one per bucket (thousands at 50 M events;
-- docs/benchmarks.md, "Analytics"). EXTERNAL keeps a sketch out of line and uncompressed. The
-- exact form (random 64-bit hashes) never compressed anyway. The dense sketches already stored are
-- rewritten so (their rows are per bucket, not per event: bounded).
ALTER TABLE funnel_rollups ALTER COLUMN subscribers SET STORAGE EXTERNAL;
UPDATE funnel_rollups SET subscribers = subscribers || ''::bytea WHERE get_byte(subscribers, 0) = 2;
