-- 0011: a frequency cap reads at most `count` events of one subscriber (issue 35).
--
-- A cap counts the subscriber's `paywall_open` events on one placement showing one of the rule's
-- paywalls since the start of its interval. Through events_by_subscriber that walked every event
-- of the subscriber in the interval (150,000 of them for a subscriber the public key flooded);
-- through this partial index the query reads matching entries only, and stops at the cap's count
-- (`LIMIT`), so a cap's price is its count (EvaluationCost). Only `paywall_open` rows are indexed.
CREATE INDEX events_presentations ON events (app_id, subscriber_id, placement, paywall_id, occurred_at) WHERE name = 'paywall_open';
