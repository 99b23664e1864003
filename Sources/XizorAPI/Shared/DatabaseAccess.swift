import Storage

extension DatabasePool {
    /// A write whose storage failures become `ServiceError.storage` (503), while domain errors and
    /// data failures (stored data that no longer reads: a 500, not an outage) thrown inside pass
    /// through unchanged and roll the transaction back.
    func serviceWrite<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try write(body) } catch let error as ServiceError { throw error } catch let error as DataFailure { throw error } catch let error as SQLiteError where error.isConstraintViolation {
            // Input the validation let through but the schema refuses is the caller's problem, not an outage.
            throw ServiceError(.unprocessable, "constraint_violation", "The data breaks a rule of the database: \(error.message)")
        } catch { throw ServiceError.storage(error) }
    }

    /// A read with the same error mapping as `serviceWrite`.
    func serviceRead<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try read(body) } catch let error as ServiceError { throw error } catch let error as DataFailure { throw error } catch { throw ServiceError.storage(error) }
    }
}
