import OresRedux

/// One action that reached the reducer, with the state before and after it.
struct Received<State: Sendable>: Sendable {
    let action: any Action
    let before: State
    let after: State
}

/// What the test store recorded, under its lock.
struct ReducerLog<State: Sendable> {
    var exhaustivity: Exhaustivity
    var received: [Received<State>] = []
    private var isAsserted: [Bool] = []
    /// Every action before this index has been asserted (or skipped).
    private var cursor = 0
    var tracked: [UInt64: Tracked<State>] = [:]
    private var nextTrackID: UInt64 = 0
    private var sendCount: UInt64 = 0
    /// Where each `send` in progress landed: its mark's id, and the index of its action.
    var sendLandings: [UInt64: Int] = [:]
    /// Failures met by calls that cannot throw (an advance of the clock that gave up), thrown by
    /// the next wait.
    var failures: [String] = []
    /// Work of an owner that finished after its owner ended, with no policy that allows it, named.
    var outlived: [String] = []

    init(exhaustivity: Exhaustivity) {
        self.exhaustivity = exhaustivity
    }

    var unassertedIndices: [Int] { (cursor..<received.count).filter { !isAsserted[$0] } }

    mutating func append(_ entry: Received<State>) {
        received.append(entry)
        isAsserted.append(false)
    }

    mutating func markAsserted(_ index: Int) {
        isAsserted[index] = true
        while cursor < isAsserted.count, isAsserted[cursor] { cursor += 1 }
    }

    mutating func nextSendID() -> UInt64 {
        sendCount += 1
        return sendCount
    }

    mutating func startTracking(_ work: Tracked<State>) -> UInt64 {
        nextTrackID += 1
        tracked[nextTrackID] = work
        return nextTrackID
    }

}
