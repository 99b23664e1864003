import Storage
import XizorDomain

/// Gathers every counter the server keeps into one Prometheus text page: HTTP (from the server's
/// observer), the representation cache, the services, rate limits, SQLite and the process.
struct MetricsExposition: Sendable {
    let services: XizorServices
    let cache: RepresentationCache
    let renderGate: RenderGate
    let httpMetrics: HTTPMetrics?
    let rateLimits: RateLimitCounters
    let isDraining: @Sendable () -> Bool
    /// When the routes were built, within moments of the process starting (before it listens).
    let startedAt: Int64 = Clock.system.now()

    func render() -> String {
        var out = PrometheusText()
        httpMetrics?.write(to: &out)

        out.family(
            "xizor_representation_cache_hits_total", .counter,
            "SDK answers served from an already rendered and compressed representation.")
        out.sample("xizor_representation_cache_hits_total", [], cache.hitCount)
        out.family(
            "xizor_representation_cache_misses_total", .counter,
            "SDK answers that had to render (and compress) a representation first, by cause: absent (built and stored), context_variant_cap (a page for one more context value of a version past pageCache.maxContextVariants: rendered, not stored)."
        )
        for cause in RepresentationCache.MissCause.allCases {
            out.sample("xizor_representation_cache_misses_total", [("cause", cause.rawValue)], cache.missCount(cause))
        }
        out.family(
            "xizor_page_renders_refused_total", .counter,
            "Uncached page renders answered 503 render_busy because pageCache.uncachedRendersPerApp were running for the app."
        )
        out.sample("xizor_page_renders_refused_total", [], renderGate.refusalCount)

        let gate = services.analyticsGate
        out.family(
            "xizor_analytics_refused_total", .counter,
            "Analytics requests refused at once, by reason: app_share (429: the app ran analytics.maxConcurrentPerApp), server (503: the process ran analytics.maxConcurrent)."
        )
        out.sample("xizor_analytics_refused_total", [("reason", "app_share")], gate.refusedForApp)
        out.sample("xizor_analytics_refused_total", [("reason", "server")], gate.refusedForServer)
        out.family(
            "xizor_analytics_time_limit_total", .counter,
            "Analytics requests stopped because a statement ran past analytics.queryTimeLimitMs (503 query_time_limit)."
        )
        out.sample("xizor_analytics_time_limit_total", [], gate.stoppedAtTimeLimit)
        out.family(
            "xizor_rollup_events_folded_total", .counter,
            "Queued events this process folded into the analytics rollups (docs/analytics.md).")
        out.sample("xizor_rollup_events_folded_total", [], services.rollups.folded)
        out.family(
            "xizor_rollup_failures_total", .counter,
            "Rollup passes that failed (the queue keeps their events; the next pass tries again).")
        out.sample("xizor_rollup_failures_total", [], services.rollups.failures)

        let activity = services.activity
        out.family(
            "xizor_rule_versions_not_parsed_total", .counter,
            "Semantic-version rule comparisons that met a request value that is not a version (a non-match).")
        out.sample("xizor_rule_versions_not_parsed_total", [], activity.ruleVersionsNotParsed)
        out.family(
            "xizor_rules_capped_total", .counter,
            "Rules that matched but had reached their frequency cap (the next rule was tried).")
        out.sample("xizor_rules_capped_total", [], activity.rulesCappedCount)
        out.family(
            "xizor_events_subscriber_limited_total", .counter,
            "Event batches refused (429 subscriber_rate_limited) because a subscriber in them was past rateLimits.eventsPerSubscriberPerMinute."
        )
        out.sample("xizor_events_subscriber_limited_total", [], services.events.subscriberLimit?.refusedBatches ?? 0)
        out.family(
            "xizor_store_refused_on_io_loop_total", .counter,
            "Database transactions refused because an inline handler asked for one on an I/O loop (a server bug: always 0)."
        )
        out.sample("xizor_store_refused_on_io_loop_total", [], StoreErrors.refusedOnIOLoop.load(ordering: .relaxed))
        out.family(
            "xizor_rule_evaluation_budget_exhausted_total", .counter,
            "SDK requests whose rule evaluation ran out of its step budget (rules stored before budgets were checked); the placement's own target served."
        )
        out.sample("xizor_rule_evaluation_budget_exhausted_total", [], activity.evaluationBudgetsExhausted)
        out.family(
            "xizor_publishes_total", .counter,
            "Paywall versions published (rollbacks included, idempotent replays not).")
        out.sample("xizor_publishes_total", [], activity.publishes)
        out.family(
            "xizor_events_ingested_total", .counter,
            "Funnel events stored (duplicates and rejected events not included).")
        out.sample("xizor_events_ingested_total", [], activity.eventsIngested)
        out.family("xizor_events_duplicates_total", .counter, "Funnel events received again with an id already stored.")
        out.sample("xizor_events_duplicates_total", [], activity.eventsDuplicates)
        out.family("xizor_events_rejected_total", .counter, "Funnel events refused as invalid.")
        out.sample("xizor_events_rejected_total", [], activity.eventsRejectedCount)
        out.family(
            "xizor_data_failures_total", .counter,
            "Stored or derived data the server could not use (answered 500, logged), by kind.")
        for kind in DataFailure.Kind.allCases {
            out.sample("xizor_data_failures_total", [("kind", kind.label)], activity.dataFailureCount(kind))
        }

        let webhooks = services.webhookCounters
        out.family(
            "xizor_webhook_deliveries_total", .counter,
            "Webhook delivery attempts by outcome: delivered, retried (scheduled again), failed (gave up after webhooks.retryForMs)."
        )
        out.sample(
            "xizor_webhook_deliveries_total", [("outcome", "delivered")], webhooks.delivered.load(ordering: .relaxed))
        out.sample(
            "xizor_webhook_deliveries_total", [("outcome", "retried")], webhooks.retried.load(ordering: .relaxed))
        out.sample("xizor_webhook_deliveries_total", [("outcome", "failed")], webhooks.failed.load(ordering: .relaxed))
        out.family(
            "xizor_webhook_dispatch_errors_total", .counter,
            "Outbox reads or writes of the webhook senders that failed (the database was away).")
        out.sample("xizor_webhook_dispatch_errors_total", [], webhooks.errors.load(ordering: .relaxed))
        out.family(
            "xizor_webhook_endpoints_disabled_total", .counter,
            "Webhook endpoints this process disabled because they failed for webhooks.disableAfterMs.")
        out.sample("xizor_webhook_endpoints_disabled_total", [], webhooks.disabled.load(ordering: .relaxed))
        out.family(
            "xizor_cache_purges_total", .counter,
            "Purges of the shared caches in cache.purgeURLs by outcome: sent (a cache answered 2xx), failed (a pass retried with backoff)."
        )
        out.sample(
            "xizor_cache_purges_total", [("outcome", "sent")], services.cachePurges.sent.load(ordering: .relaxed))
        out.sample(
            "xizor_cache_purges_total", [("outcome", "failed")], services.cachePurges.failed.load(ordering: .relaxed))

        out.family(
            "xizor_store_notifications_total", .counter,
            "Store notifications received by this process (docs/revenue.md), by source and outcome: stored, duplicate (a retry), or the reason it was refused."
        )
        let notifications = services.revenue.counters.withLock { $0 }
        for source in StoreSource.allCases {
            let counted = notifications[source] ?? [:]
            for outcome in Set(counted.keys).union(["stored", "duplicate"]).sorted() {
                out.sample(
                    "xizor_store_notifications_total", [("source", source.rawValue), ("outcome", outcome)],
                    counted[outcome] ?? 0)
            }
        }

        let changes = services.changes
        out.family(
            "xizor_changes_applied_total", .counter,
            "Changes of the change feed applied by this process (its own writes and every other process's).")
        out.sample("xizor_changes_applied_total", [], changes.appliedCount)
        out.family(
            "xizor_change_feed_sequence", .gauge,
            "The last change-feed sequence this process applied: equal across processes once they have caught up.")
        out.sample("xizor_change_feed_sequence", [], Int(changes.appliedSequence))
        out.family(
            "xizor_change_feed_failures_total", .counter,
            "Change-feed polls that failed (logged; retried on the next poll).")
        out.sample("xizor_change_feed_failures_total", [], changes.failureCount)

        let attributes = services.serving.attributeCache
        out.family(
            "xizor_subscriber_attribute_cache_hits_total", .counter,
            "Reads of a subscriber's stored attributes (rules on subscriber.*) answered from this process's cache, by where: io_loop (the request answered inline), handler (offloaded anyway, e.g. a frequency cap)."
        )
        out.sample("xizor_subscriber_attribute_cache_hits_total", [("where", "io_loop")], attributes.loopHits)
        out.sample("xizor_subscriber_attribute_cache_hits_total", [("where", "handler")], attributes.handlerHits)
        out.family(
            "xizor_subscriber_attribute_cache_misses_total", .counter,
            "Reads of a subscriber's stored attributes that went to the database (and filled the cache), off the I/O loop."
        )
        out.sample("xizor_subscriber_attribute_cache_misses_total", [], attributes.misses)
        out.family(
            "xizor_subscriber_attribute_cache_entries", .gauge,
            "Subscribers whose attributes this process caches (none stored counts too).")
        out.sample("xizor_subscriber_attribute_cache_entries", [], attributes.count)

        out.family("xizor_rate_limited_total", .counter, "Requests answered 429 by a per-key rate limit.")
        for kind in RateLimitClass.allCases {
            out.sample("xizor_rate_limited_total", [("limit", kind.label)], rateLimits.count(kind))
        }

        let storage = services.store.metrics.snapshot()
        out.family("xizor_storage_writes_total", .counter, "SQLite write transactions, by outcome.")
        out.sample("xizor_storage_writes_total", [("outcome", "committed")], Int(storage.writesCommitted))
        out.sample("xizor_storage_writes_total", [("outcome", "failed")], Int(storage.writesFailed))
        out.family(
            "xizor_storage_write_duration_seconds", .histogram, "SQLite write transactions, queue wait included.")
        var counts: [Int] = []
        var previous: UInt64 = 0
        for cumulative in storage.writeLatencyBuckets {
            counts.append(Int(cumulative - min(previous, cumulative)))
            previous = cumulative
        }
        out.histogram(
            "xizor_storage_write_duration_seconds", [], bounds: StorageMetrics.latencyBucketBounds,
            counts: counts, sum: storage.writeSecondsTotal)
        out.family(
            "xizor_storage_busy_retries_total", .counter,
            "Times BEGIN IMMEDIATE was retried after SQLITE_BUSY outlived the busy timeout.")
        out.sample("xizor_storage_busy_retries_total", [], Int(storage.busyRetries))
        out.family("xizor_storage_reads_total", .counter, "Read transactions run on the read connections.")
        out.sample("xizor_storage_reads_total", [], Int(storage.reads))

        out.family("xizor_draining", .gauge, "1 while the server drains for shutdown.")
        out.sample("xizor_draining", [], isDraining() ? 1 : 0)

        let process = ProcessStatistics.current()
        if let rss = process.residentBytes {
            out.family("process_resident_memory_bytes", .gauge, "Resident memory size in bytes.")
            out.sample("process_resident_memory_bytes", [], rss)
        }
        if let virtual = process.virtualBytes {
            out.family("process_virtual_memory_bytes", .gauge, "Virtual memory size in bytes.")
            out.sample("process_virtual_memory_bytes", [], virtual)
        }
        if let fds = process.openFileDescriptors {
            out.family("process_open_fds", .gauge, "Open file descriptors.")
            out.sample("process_open_fds", [], fds)
        }
        if let maxFDs = process.maxFileDescriptors {
            out.family("process_max_fds", .gauge, "Limit on open file descriptors.")
            out.sample("process_max_fds", [], maxFDs)
        }
        out.family("process_cpu_seconds_total", .counter, "User and system CPU time spent, seconds.")
        out.sample("process_cpu_seconds_total", [], process.cpuSeconds)
        out.family("process_start_time_seconds", .gauge, "Start time of the process since the Unix epoch, seconds.")
        out.sample("process_start_time_seconds", [], Double(startedAt) / 1000)
        return out.text
    }
}
