import Testing

@testable import HTTP
@testable import XizorAPI
@testable import XizorDomain

/// An I/O loop never waits on the database: a transaction asked for while an inline handler runs
/// (`InlineExecution`) is refused on both databases, so an inline handler that reaches the store
/// fails every test that reaches it.
@Suite struct StoreOnIOLoopTests {
    @Test(arguments: Driver.allCases)
    func theStoresRefuseATransactionOnAnIOLoop(driver: Driver) throws {
        let test = try TestServices("io-loop", driver: driver)
        defer { test.remove() }
        let store = test.services.store
        let refusedBefore = StoreErrors.refusedOnIOLoop.load(ordering: .relaxed)
        let codes = InlineExecution.run { () -> [String] in
            #expect(InlineExecution.isActive)
            return [
                code(of: { _ = try store.read { tx in try tx.apps.liveAppIDs() } }),
                code(of: { _ = try store.write { tx in try tx.apps.liveAppIDs() } }),
            ]
        }
        #expect(codes == ["store_on_io_loop", "store_on_io_loop"])
        #expect(StoreErrors.refusedOnIOLoop.load(ordering: .relaxed) >= refusedBefore + 2)
        // Off the loop the same read runs.
        #expect(!InlineExecution.isActive)
        #expect(try store.read { tx in try tx.apps.liveAppIDs() }.isEmpty)
    }

    /// Admission runs on the loop too: a key seen before is admitted there from memory, an unknown
    /// one asks to leave (`HTTPOffload`) before the change feed's catch-up would reach the store,
    /// and off the loop the same admission looks it up and refuses it.
    @Test func anUnknownKeyLeavesTheLoopBeforeItsCatchUp() throws {
        let test = try TestServices("io-loop-admission")
        defer { test.remove() }
        let app = try test.services.keys.createApp(name: "A")
        let table = XizorApplication.routes(services: test.services, isDraining: { false })
        func request(_ key: String) -> HTTPRequest {
            HTTPRequest(
                method: .GET, target: "/v1/paywalls", path: "/v1/paywalls",
                headers: HTTPRequestHeaders([("Host", "x"), ("Authorization", "Bearer \(key)")]))
        }
        var known = request(app.secretKey)
        let resolution = table.resolve(&known)
        let admission = try #require(resolution.admission)
        #expect(InlineExecution.run { code(of: { try admission(&known) }) } == "ran")
        #expect(known.partition == app.appID)
        var unknown = request("sk_nothing")
        #expect(InlineExecution.run { code(of: { try admission(&unknown) }) } == "HTTPOffload()")
        #expect(code(of: { try admission(&unknown) }) == "invalid_api_key")
    }

    private func code(of body: () throws -> Void) -> String {
        do {
            try body()
            return "ran"
        } catch let error as HTTPError {
            return error.code
        } catch let error as ServiceError {
            return error.code
        } catch {
            return "\(error)"
        }
    }
}
