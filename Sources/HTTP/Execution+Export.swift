/// A handler declared `.inline` and an admission run on an I/O loop, where nothing may wait, and
/// say so by throwing `HTTPOffload`: both are part of this module's API, so whoever imports HTTP
/// has them. They live in `Execution` because code that knows nothing of HTTP (the domain's store
/// and resolver) must ask the same question of the same thread.
@_exported import Execution
