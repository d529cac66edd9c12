#if canImport(SwiftUI)
    import SwiftUI

    extension View {
        /// Starts `work` when the view appears, under a ``WorkOwner`` made for this appearance, and
        /// ends the owner when the view disappears: the graphs and async actions `work` dispatched
        /// through it end then, each node as its ``OwnerEndPolicy`` says.
        ///
        /// ```swift
        /// Text("Feed")
        ///     .task(owner: "Feed", of: store) { owner in owner.dispatch(feedGraph()) }
        /// ```
        ///
        /// It is SwiftUI's `task(priority:_:)` around ``WorkOwner/endWhenCancelled(isolation:_:)``:
        /// the work may go on after `work` returns, until the view disappears.
        /// - Parameters:
        ///   - name: the owner's name, for diagnostics and tests ("Feed").
        ///   - store: the store the work runs in.
        ///   - priority: the priority of the view's task.
        ///   - work: starts the view's work under the owner, on the main actor.
        public func task<State: Sendable>(
            owner name: String, of store: Store<State>, priority: TaskPriority = .userInitiated,
            _ work: @escaping @MainActor @Sendable (WorkOwner<State>) async -> Void
        ) -> some View {
            modifier(OwnedTask(makeOwner: { store.makeOwner(name) }, priority: priority, work: work))
        }

        /// Starts `work` when the view appears, under a ``WorkOwner`` made from `scope` for this
        /// appearance, and ends the owner when the view disappears (or, for a scope of an optional
        /// state, when that state becomes `nil`; see ``ScopedStore/makeOwner(_:)``).
        /// - Parameters:
        ///   - name: the owner's name, for diagnostics and tests ("Game").
        ///   - scope: the scope of the store the work sees.
        ///   - priority: the priority of the view's task.
        ///   - work: starts the view's work under the owner, on the main actor.
        public func task<State: Sendable>(
            owner name: String, of scope: ScopedStore<State>, priority: TaskPriority = .userInitiated,
            _ work: @escaping @MainActor @Sendable (WorkOwner<State>) async -> Void
        ) -> some View {
            modifier(OwnedTask(makeOwner: { scope.makeOwner(name) }, priority: priority, work: work))
        }
    }

    /// A view's task whose work has an owner that ends when the view disappears.
    private struct OwnedTask<State: Sendable>: ViewModifier {
        let makeOwner: @Sendable () -> WorkOwner<State>
        let priority: TaskPriority
        let work: @MainActor @Sendable (WorkOwner<State>) async -> Void

        func body(content: Content) -> some View {
            let (makeOwner, work) = (makeOwner, work)
            return content.task(priority: priority) { @MainActor in
                await makeOwner().endWhenCancelled { owner in await work(owner) }
            }
        }
    }
#endif
