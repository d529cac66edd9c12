/// The services a store gives its async actions and middleware: an API client, a database, a
/// random-number generator... each looked up by type, with a default for each.
///
/// An app sets its live values once, in ``StoreOptions/dependencies``; a test sets fakes in its
/// `TestStore`; `run` reads them from ``ActionContext/dependencies``. The action itself carries
/// only its data, so it stays a plain value (synthesized `Equatable` included) and reaches no global.
///
/// ```swift
/// struct FetchProfile: AsyncAction {
///     let token: String
///     func run(_ context: ActionContext<AppState>) async throws -> Profile {
///         try await context.dependencies.api.profile(token: token)
///     }
/// }
///
/// var dependencies = Dependencies()
/// dependencies.api = LiveAPI()
/// let store = Store(initialState: AppState(), reducer: appReducer,
///                   options: StoreOptions(dependencies: dependencies))
/// ```
///
/// Declare each dependency with a ``DependencyKey`` and a computed property in an extension of
/// `Dependencies` (see ``DependencyKey``).
///
/// What it promises: a value set for a key is the value read for that key, of the key's own type;
/// a key never set reads its ``DependencyKey/defaultValue``. It is a value: copies are independent,
/// and a store keeps the copy it was given.
public struct Dependencies: Sendable {
    /// The values set so far, by key type. Only the subscript's setter writes here, always storing a
    /// `Key.Value` under `ObjectIdentifier(Key.self)`.
    private var values: [ObjectIdentifier: any Sendable] = [:]

    /// Creates a set of dependencies in which every key reads its default value.
    public init() {}

    /// The value for `key`: the one last set, or the key's ``DependencyKey/defaultValue``.
    ///
    /// Setting a value replaces the previous one for that key only.
    public subscript<Key: DependencyKey>(key: Key.Type) -> Key.Value {
        get {
            guard let stored = values[ObjectIdentifier(key)] else { return Key.defaultValue }
            // Always succeeds (the setter stores a `Key.Value` under this key alone); a conditional
            // cast all the same, so that no misuse can crash the app.
            return stored as? Key.Value ?? Key.defaultValue
        }
        set {
            values[ObjectIdentifier(key)] = newValue
        }
    }
}
