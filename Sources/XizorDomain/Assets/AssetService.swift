import Digest
import PaywallFormat

/// Media an app's paywalls show: uploaded once, addressed by the SHA-256 of their bytes, served to
/// anyone with the URL (pages load them with `<img>` and `<video>`, which send no key) under
/// immutable caching. The bytes decide the type (`MediaType.sniff`); each kind has a size limit and
/// each app a quota, so one tenant cannot fill the disk.
public final class AssetService: Sendable {
    public struct Limits: Sendable, Equatable {
        public var maxImageBytes = 5 << 20
        public var maxVideoBytes = 20 << 20
        public var maxLottieBytes = 2 << 20
        public var maxBytesPerApp: Int64 = 256 << 20
        /// Bytes of served files kept in memory (`assets.cacheBytes`).
        public var cacheBytes = 64 << 20
        public init() {}

        func max(for kind: MediaType.Kind) -> Int {
            switch kind {
            case .image: maxImageBytes
            case .video: maxVideoBytes
            case .lottie: maxLottieBytes
            }
        }
    }

    /// One file as served: its bytes, type and strong validator.
    public struct ServedFile: Sendable {
        public let bytes: [UInt8]
        public let contentType: String
        public let etag: String
    }

    private let store: any DataStore
    private let clock: Clock
    public let location: AssetLocation
    private let limits: Limits
    private let cache: AssetCache

    public init(store: any DataStore, clock: Clock, location: AssetLocation, limits: Limits) {
        self.store = store
        self.clock = clock
        self.location = location
        self.limits = limits
        cache = AssetCache(capacity: limits.cacheBytes)
    }

    /// Stores `bytes` for the app (idempotent: the same bytes answer the same asset, `created` false).
    public func upload(caller: AppCaller, bytes: [UInt8], declaredType: String?, name: String?) throws -> (
        asset: JSONValue, created: Bool
    ) {
        guard !bytes.isEmpty else {
            throw ServiceError(.badRequest, "missing_body", "Send the file's bytes as the body.")
        }
        guard let type = MediaType.sniff(bytes) else {
            throw ServiceError(
                .unsupportedMediaType, "unsupported_media_type",
                "The file is none of PNG, JPEG, GIF, WebP, MP4, WebM or Lottie JSON (SVG is not accepted: it can carry script)."
            )
        }
        guard type.agrees(withDeclared: declaredType) else {
            throw ServiceError(
                .unsupportedMediaType, "content_type_mismatch",
                "The body is \(type.contentType) but was declared as \(declaredType ?? "").")
        }
        let max = limits.max(for: type.kind)
        guard bytes.count <= max else {
            throw ServiceError(
                .contentTooLarge, "asset_too_large",
                "A \(type.kind.rawValue) may be at most \(max) bytes; this one is \(bytes.count).")
        }
        if let name, !TextLimits.fits(name, max: 200) {
            throw ServiceError.badField("$.name", "type_mismatch", "'name' is 1 to 200 characters.")
        }
        let sha = SHA256.hexDigest(bytes)
        let row = AssetRow(
            appID: caller.appID, sha256: sha, kind: type.kind.rawValue, contentType: type.contentType,
            size: Int64(bytes.count), name: name, createdAt: clock.now(), createdBy: caller.keyID)
        let limit = limits.maxBytesPerApp
        return try store.write { tx in
            // Sum, then insert: one upload of the app's at a time, or two would each fit the quota's rest.
            try tx.apps.lockForLimits(appID: caller.appID)
            if let existing = try tx.assets.row(appID: caller.appID, sha256: sha) { return (try json(existing), false) }
            let used = try tx.assets.totalSize(appID: caller.appID)
            guard used + row.size <= limit else {
                throw ServiceError(
                    .contentTooLarge, "asset_quota_exceeded",
                    "This app's assets would take \(used + row.size) bytes; the limit is \(limit).")
            }
            guard try tx.assets.insert(row, bytes: bytes) else {
                throw StoreInconsistency(detail: "an asset appeared during its own upload")
            }
            try tx.record(
                WriteRecord(
                    appID: caller.appID, action: .assetUploaded, targetKind: "asset", targetID: sha, after: bytes),
                now: row.createdAt)
            return (try json(row), true)
        }
    }

    public func list(appID: String, limit: Int, cursor: PageCursor) throws -> (items: [JSONValue], next: PageCursor?) {
        let rows = try store.read { tx in try tx.assets.list(appID: appID, limit: limit + 1, after: cursor) }
        let page = rows.prefix(limit)
        let next = rows.count > limit ? page.last.map { PageCursor(createdAt: $0.createdAt, id: $0.sha256) } : nil
        return (try page.map(json), next)
    }

    public func describe(appID: String, id: String) throws -> JSONValue {
        guard let row = try store.read({ tx in try tx.assets.row(appID: appID, sha256: id) }) else {
            throw ServiceError(.notFound, "asset_not_found", "No asset '\(id)' in this app.")
        }
        return try json(row)
    }

    /// `/v1/assets/{folder}/{file}`: an app's upload (`{sha256}.{ext}`) or a template's bundled file.
    public func file(folder: String, name: String) throws -> ServedFile {
        let missing = ServiceError(.notFound, "asset_not_found", "No asset at this URL.")
        if folder == AssetLocation.templatesFolder {
            guard let bundled = BundledMedia.file(named: name) else { throw missing }
            return ServedFile(
                bytes: bundled.bytes, contentType: bundled.type.contentType, etag: "\"" + bundled.sha256 + "\"")
        }
        let parts = name.split(separator: ".")
        guard parts.count == 2, let type = MediaType.byExtension(String(parts[1])) else { throw missing }
        let sha = String(parts[0])
        guard sha.utf8.count == 64, sha.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
        else { throw missing }
        let key = AssetCache.Key(appID: folder, sha256: sha)
        if let cached = cache.file(key) {
            guard cached.contentType == type.contentType else { throw missing }
            return cached
        }
        let found = try store.read { tx -> (AssetRow, [UInt8])? in
            guard let row = try tx.assets.row(appID: folder, sha256: sha),
                let bytes = try tx.assets.bytes(appID: folder, sha256: sha)
            else { return nil }
            return (row, bytes)
        }
        guard let (row, bytes) = found else { throw missing }
        let file = ServedFile(bytes: bytes, contentType: row.contentType, etag: "\"" + sha + "\"")
        cache.store(file, for: key)
        guard row.contentType == type.contentType else { throw missing }
        return file
    }

    /// A stored asset as the API answers it. Its URL's extension comes from its content type, which
    /// only `MediaType` writes (and the schema checks): one it does not know is a broken row.
    func json(_ row: AssetRow) throws -> JSONValue {
        guard let type = MediaType.byContentType(row.contentType) else {
            throw StoreInconsistency(
                detail: "asset \(row.sha256) has content type '\(row.contentType)', which no media type has")
        }
        let path = AssetLocation.path(appID: row.appID, sha256: row.sha256, fileExtension: type.fileExtension)
        return [
            "id": .string(row.sha256), "url": .string(location.url(path: path)), "path": .string(path),
            "kind": .string(row.kind), "contentType": .string(row.contentType), "size": .number(.integer(row.size)),
            "name": row.name.map(JSONValue.string) ?? .null, "createdAt": .number(.integer(row.createdAt)),
            "createdBy": row.createdBy.map(JSONValue.string) ?? .null,
        ]
    }
}
