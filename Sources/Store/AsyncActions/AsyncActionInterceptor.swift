/// Runs async actions in place of the store: the seam `TestStore` uses for its stubs.
package protocol AsyncActionInterceptor: Sendable {
    func perform<A: AsyncAction>(_ action: A, context: ActionContext<A.State>) async throws -> A.Response
}
