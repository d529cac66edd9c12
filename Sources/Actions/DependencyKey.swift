/// A key for one dependency in ``Dependencies``: its type and the value used until a store sets one.
///
/// Declare a key per dependency, then a computed property on ``Dependencies`` so that async actions
/// read it by name, as SwiftUI's `EnvironmentKey` and `EnvironmentValues` do:
///
/// ```swift
/// private enum APIKey: DependencyKey {
///     static let defaultValue: any API = UnimplementedAPI()
/// }
///
/// extension Dependencies {
///     var api: any API {
///         get { self[APIKey.self] }
///         set { self[APIKey.self] = newValue }
///     }
/// }
/// ```
///
/// The key's type is its identity: two key types never share a value, even with the same `Value`.
public protocol DependencyKey {
    /// The type of the dependency; `Sendable`, because async actions read it from any task.
    associatedtype Value: Sendable
    /// The value read while no store or test has set one. A safe choice for a live service is one
    /// that fails loudly ("api was not set"), so a forgotten registration shows in the first test.
    static var defaultValue: Value { get }
}
