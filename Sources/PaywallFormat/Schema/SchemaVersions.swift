/// The schema versions this server understands.
public enum SchemaVersions {
    public static let supported: [Int] = [1, 2, 3]
    public static let latest = 3
}

public let supportedSchemaVersions = SchemaVersions.supported
public let latestSchemaVersion = SchemaVersions.latest
