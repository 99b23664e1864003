/// An experiment as stored, with its variants in order (the first is the control).
public struct StoredExperiment: Sendable {
    public let id: String
    public let name: String
    public let status: Experiment.Status
    public let variants: [Experiment.Variant]
    public let holdoutWeight: Int
    public let allocation: [UInt8]
    public let createdAt: Int64
    public let startedAt: Int64?
    public let stoppedAt: Int64?
    public let winner: Int?

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        id: String,
        name: String,
        status: Experiment.Status,
        variants: [Experiment.Variant],
        holdoutWeight: Int,
        allocation: [UInt8],
        createdAt: Int64,
        startedAt: Int64?,
        stoppedAt: Int64?,
        winner: Int?
    ) {
        self.id = id
        self.name = name
        self.status = status
        self.variants = variants
        self.holdoutWeight = holdoutWeight
        self.allocation = allocation
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.stoppedAt = stoppedAt
        self.winner = winner
    }
}

/// A value in the database this binary has no name for (written by a newer one, or by hand).
public struct UnknownStoredValue: Error, CustomStringConvertible {
    public let column: String
    public let value: String
    public var description: String { "\(column) holds '\(value)', which this binary does not know" }

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        column: String,
        value: String
    ) {
        self.column = column
        self.value = value
    }
}

/// All SQL of experiments and their variants.
public protocol ExperimentStore {
    func insert(_ experiment: StoredExperiment, appID: String, now: Int64) throws
    func experiment(appID: String, id: String) throws -> StoredExperiment?
    /// The app's experiments in creation order.
    func experiments(appID: String) throws -> [StoredExperiment]
    /// The app's running experiments (what routes SDK requests).
    func running(appID: String) throws -> [StoredExperiment]
    func setWeights(id: String, weights: [Int], holdoutWeight: Int, allocation: [UInt8], now: Int64) throws
    /// Records a transition the service checked: `running` sets the start, `stopped` the stop
    /// (once) and the winner when one was promoted.
    func setStatus(id: String, _ status: Experiment.Status, winner: Int?, now: Int64) throws
}
