import Storage
import XizorDomain

/// The stores of one transaction, on either database: each is a thin struct over the connection
/// the pool handed out for it, written once for both (`SQL*Store`); only the events' rows are
/// written each database's own way (`ingest`: `SQLiteDataStore` and `PostgresDataStore` say which).
struct SQLTransaction: StoreTransaction {
    let db: any SQLConnection
    let ingest: any EventIngest
    var events: any EventStore { SQLEventStore(db: db, ingest: ingest) }
    var rollups: any EventRollupStore { SQLEventRollupStore(db: db) }
    var apps: any AppStore { SQLAppStore(db: db) }
    var paywalls: any PaywallStore { SQLPaywallStore(db: db) }
    var placements: any PlacementStore { SQLPlacementStore(db: db) }
    var experiments: any ExperimentStore { SQLExperimentStore(db: db) }
    var timers: any TimerStore { SQLTimerStore(db: db) }
    var audiences: any AudienceStore { SQLAudienceStore(db: db) }
    var subscribers: any SubscriberStore { SQLSubscriberStore(db: db) }
    var assets: any AssetStore { SQLAssetStore(db: db) }
    var changes: any ChangeStore { SQLChangeStore(db: db) }
    var operations: any OperationsStore { SQLOperationsStore(db: db) }
    var audit: any AuditStore { SQLAuditStore(db: db) }
    var webhooks: any WebhookStore { SQLWebhookStore(db: db) }
    var revenue: any RevenueStore { SQLRevenueStore(db: db) }
    var users: any UserStore { SQLUserStore(db: db) }
}
