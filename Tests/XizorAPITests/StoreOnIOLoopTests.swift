import Testing
@testable import HTTP
@testable import XizorAPI

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
            return [code(of: { _ = try store.read { tx in try tx.apps.liveAppIDs() } }),
                    code(of: { _ = try store.write { tx in try tx.apps.liveAppIDs() } })]
        }
        #expect(codes == ["store_on_io_loop", "store_on_io_loop"])
        #expect(StoreErrors.refusedOnIOLoop.load(ordering: .relaxed) >= refusedBefore + 2)
        // Off the loop the same read runs.
        #expect(!InlineExecution.isActive)
        #expect(try store.read { tx in try tx.apps.liveAppIDs() }.isEmpty)
    }

    private func code(of body: () throws -> Void) -> String {
        do {
            try body()
            return "ran"
        } catch let error as HTTPError {
            return error.code
        } catch {
            return "\(error)"
        }
    }
}
