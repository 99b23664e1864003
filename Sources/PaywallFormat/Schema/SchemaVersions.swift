/// The schema versions this server understands.
public enum SchemaVersions {
    public static let supported: [Int] = [1, 2]
    public static let latest = 2
}

public let supportedSchemaVersions = SchemaVersions.supported
public let latestSchemaVersion = SchemaVersions.latest
