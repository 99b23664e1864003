/// Which data an event is (docs/integrations.md, "Sandbox and production"): purchases from
/// TestFlight or StoreKit testing are `sandbox`, and stay out of what a team decides with.
public enum DataEnvironment: String, Sendable, CaseIterable {
    case production, sandbox
}

/// Which events analytics, experiment results and the export count: production unless asked.
public enum EnvironmentFilter: String, Sendable, CaseIterable {
    case production, sandbox, all

    /// The one environment counted, or nil for all.
    public var only: DataEnvironment? {
        switch self {
        case .production: .production
        case .sandbox: .sandbox
        case .all: nil
        }
    }

    /// The `environment` query parameter (production when absent); 400 for another value.
    public static func parse(_ raw: String?) throws -> EnvironmentFilter {
        guard let raw else { return .production }
        guard let filter = EnvironmentFilter(rawValue: raw) else {
            throw ServiceError(
                .badRequest, "invalid_environment", "'environment' is production, sandbox or all, not '\(raw)'.")
        }
        return filter
    }
}
