import Storage

extension DatabasePool {
    /// A write whose storage failures become `ServiceError.storage` (503), while domain errors
    /// thrown inside pass through unchanged and roll the transaction back.
    func serviceWrite<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try write(body) } catch let error as ServiceError { throw error } catch { throw ServiceError.storage(error) }
    }

    /// A read with the same error mapping as `serviceWrite`.
    func serviceRead<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try read(body) } catch let error as ServiceError { throw error } catch { throw ServiceError.storage(error) }
    }
}
