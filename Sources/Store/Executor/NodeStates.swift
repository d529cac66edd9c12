/// Every node's bookkeeping in one run, in one allocation that this object frees.
///
/// The run's state machine writes it through `buffer`. A report of a finished run shares it instead
/// of copying it (24 bytes a node: 24 MB for a million nodes); a report of a run still going gets a
/// copy of its own.
// Why this is safe to share: `buffer` is written only by the run's state machine, under the run's
// lock. A report shares this object only once the run has finished, and from then on nothing writes
// it: every node is terminal, the machine ignores events about terminal nodes, and `cancel` returns
// at once. A report taken earlier holds a copy that nothing else can reach.
final class NodeStates: RandomAccessCollection, @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<RunStateMachine.NodeState>

    /// Room for `count` states, which the caller initializes.
    init(count: Int) {
        buffer = .allocate(capacity: count)
    }

    /// A copy of `other`'s states as they are now.
    init(copying other: NodeStates) {
        buffer = .allocate(capacity: other.count)
        _ = buffer.initialize(fromContentsOf: other.buffer)
    }

    deinit {
        buffer.deallocate()     // `NodeState` is trivial: nothing to deinitialize
    }

    var startIndex: Int { 0 }
    var endIndex: Int { buffer.count }

    subscript(index: Int) -> RunStateMachine.NodeState { buffer[index] }
}
