import Foundation
import HTTP
import PaywallFormat
import Storage
import Testing
import XizorStores

@testable import XizorAPI
@testable import XizorDomain

/// The real application's routes and document, built over a migrated SQLite file in a temp dir.
private struct BuiltApplication {
    let directory: String
    let table: RoutingTable
    let document: JSONValue

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("xizor-api-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: directory + "/xizor.sqlite")
        _ = try XizorSchema.migrator().migrate(pool)
        let services = try XizorServices(pool: pool)
        (table, document) = XizorApplication.build(services: services, isDraining: { false })
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    /// `GET /v1/paywalls/{id}` for every operation in the document.
    var documentedOperations: Set<String> {
        var result: Set<String> = []
        for (path, item) in document["paths"]?.objectValue ?? [:] {
            for method in (item.objectValue ?? [:]).keys { result.insert("\(method.uppercased()) \(path)") }
        }
        return result
    }

    var registeredOperations: Set<String> {
        Set(
            table.registeredRoutes.map { route in
                let path =
                    "/"
                    + route.pattern.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                    .joined(separator: "/")
                return "\(route.method) \(path)"
            })
    }
}

@Test func everyRegisteredRouteIsDocumentedAndViceVersa() throws {
    let app = try BuiltApplication()
    defer { app.remove() }
    #expect(app.table.registeredRoutes.count == app.registeredOperations.count, "a route is registered twice")
    #expect(app.registeredOperations.subtracting(app.documentedOperations).isEmpty, "registered but undocumented")
    #expect(app.documentedOperations.subtracting(app.registeredOperations).isEmpty, "documented but not registered")
    for expected in [
        "GET /healthz", "GET /readyz", "GET /openapi.json", "POST /v1/apps", "PUT /v1/paywalls/{id}/draft",
        "GET /v1/placements/{key}/resolve", "PUT /v1/paywalls/{id}/draft/texts/{locale}",
    ] {
        #expect(app.documentedOperations.contains(expected), "\(expected)")
    }
}

@Test func operationsHaveUniqueIdsPathParametersAndProblemAnswers() throws {
    let app = try BuiltApplication()
    defer { app.remove() }
    var ids: [String] = []
    for (path, item) in app.document["paths"]?.objectValue ?? [:] {
        let names = path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
        for (method, operation) in item.objectValue ?? [:] {
            ids.append(operation["operationId"]?.stringValue ?? "")
            let declared = (operation["parameters"]?.arrayValue ?? []).filter { $0["in"] == "path" }.compactMap {
                $0["name"]?.stringValue
            }
            #expect(declared == names, "\(method) \(path) declares path parameters \(declared)")
            let problem = operation["responses"]?["default"]?["content"]?["application/problem+json"]
            #expect(problem != nil, "\(method) \(path) has no problem answer")
            #expect(operation["security"] != nil, "\(method) \(path) says nothing about keys")
        }
    }
    #expect(Set(ids).count == ids.count, "duplicate operationId in \(ids.sorted())")
    #expect(!ids.contains(""))
}

@Test func everyReferenceResolvesInsideTheComponents() throws {
    let app = try BuiltApplication()
    defer { app.remove() }
    let schemas = app.document["components"]?["schemas"]?.objectValue ?? [:]
    var references: [String] = []
    func walk(_ value: JSONValue) {
        switch value {
        case .object(let object):
            for (key, member) in object {
                if key == "$ref", let target = member.stringValue { references.append(target) } else { walk(member) }
            }
        case .array(let items): items.forEach(walk)
        default: break
        }
    }
    walk(app.document)
    #expect(references.count > 50)
    for target in Set(references) {
        #expect(
            target.hasPrefix("#/components/schemas/")
                && schemas[String(target.dropFirst("#/components/schemas/".count))] != nil,
            "unresolved $ref \(target)")
    }
    // The paywall document schema of every supported version, taken from the format library.
    for version in SchemaVersions.supported {
        let generated = try #require(JSONSchemaGenerator.schema(version: version)?["$defs"]?.objectValue)
        for name in generated.keys { #expect(schemas["PaywallV\(version)_\(name)"] != nil) }
        #expect(schemas["PaywallDocumentV\(version)"] != nil)
    }
}

@Test func theDocumentIsServedWithAStrongETagAndNoKey() throws {
    let app = try BuiltApplication()
    defer { app.remove() }
    var request = HTTPRequest(method: .GET, target: "/openapi.json", path: "/openapi.json")
    let response = try app.table.resolve(&request).handler(request)
    #expect(response.status == .ok)
    let etag = try #require(response.etag)
    #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
    guard case .bytes(let body) = response.body else {
        Issue.record("streamed document")
        return
    }
    #expect(try JSONParser().parse(body) == app.document)
    #expect(app.document["openapi"] == "3.1.0")
}

/// The answers the server gives before a handler runs are documented where they can happen: a body's
/// deadline (408), size (413) and the process-wide body budget (503) on every operation with a body,
/// and the page render gate (503) on the SDK paywall.
@Test func hostileInputAnswersAreDocumented() throws {
    let app = try BuiltApplication()
    defer { app.remove() }
    var withBody = 0
    for (path, item) in app.document["paths"]?.objectValue ?? [:] {
        for (method, operation) in item.objectValue ?? [:] where operation["requestBody"] != nil {
            withBody += 1
            for status in ["408", "413", "503"] {
                #expect(operation["responses"]?[status] != nil, "\(method.uppercased()) \(path) lacks \(status)")
            }
        }
    }
    #expect(withBody > 10)
    let page = app.document["paths"]?["/v1/sdk/placements/{key}/paywall"]?["get"]
    #expect(page?["responses"]?["503"]?["description"]?.stringValue?.contains("render_busy") == true)
}
