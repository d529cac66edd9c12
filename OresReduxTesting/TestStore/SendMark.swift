import OresRedux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `send` in progress on this thread, so that the recording reducer can tell the send's own
/// action from graph nodes that other threads apply meanwhile.
///
/// A thread-local, not a task-local: the store applies a dispatched action on the calling thread
/// before `dispatch` returns, while tasks started meanwhile would inherit a task-local and could
/// apply nodes on other threads. The first action this thread applies while the mark is set is the
/// send's own (or what a middleware replaced it with): the store applies the dispatched action
/// before anything queued during it.
final class SendMark: Sendable {
    let owner: ObjectIdentifier
    let id: UInt64

    init(owner: ObjectIdentifier, id: UInt64) {
        self.owner = owner
        self.id = id
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, nil)
        precondition(result == 0, "OresRedux: pthread_key_create failed with \(result)")
        return key
    }()

    /// The mark set on this thread, if a `send` is in progress here.
    static var current: SendMark? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<SendMark>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Runs `body` with this mark set on the current thread.
    func during(_ body: () -> Void) {
        let previous = pthread_getspecific(Self.key)
        pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque())
        withExtendedLifetime(self) { body() }
        pthread_setspecific(Self.key, previous)
    }
}
