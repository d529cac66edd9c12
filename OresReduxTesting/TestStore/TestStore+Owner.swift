import OresRedux

extension TestStore {
    /// Makes an owner for work that belongs to a screen (see `WorkOwner`), whose graphs and async
    /// actions this test store follows as it follows the work dispatched to it:
    /// ``finish(timeout:fileID:filePath:line:column:)`` waits for them, and names an async action
    /// that finished after its owner ended (its `run` ignored the cancellation).
    /// - Parameter name: what the test calls the screen ("Log-in screen").
    public func makeOwner(_ name: String) -> WorkOwner<State> {
        WorkOwner(store: store, name: name) { isEnded in
            Tracker(log: log, counter: counter, owner: (name, isEnded))
        }
    }

    /// Asserts what an owner's end did to `run`, right after it: the run was dispatched under an
    /// owner that ended before the run finished, every node in `cancelled` ended `.cancelled`, and
    /// none in `wentOn` did (it finished, or is still running, as its policy allows).
    /// - Parameters:
    ///   - run: a run dispatched under the owner.
    ///   - cancelled: the nodes the end must have cancelled.
    ///   - wentOn: the nodes that must have outlived it.
    ///   - fileID: where the assertion is, for the failure (filled in for you).
    ///   - filePath: the same place as a path (filled in for you).
    ///   - line: the same place's line (filled in for you).
    ///   - column: the same place's column (filled in for you).
    public func assertOwnerEnd<each C, each W>(
        of run: GraphRun<State>, cancelled: repeat Node<each C>, wentOn: repeat Node<each W>,
        fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) throws {
        let place = Place(fileID: fileID, filePath: filePath, line: line, column: column)
        var cancelledIndices: [Int] = []
        for node in repeat each cancelled { cancelledIndices.append(node.index) }
        var wentOnIndices: [Int] = []
        for node in repeat each wentOn { wentOnIndices.append(node.index) }
        try assertOwnerEnd(of: run, cancelled: cancelledIndices, wentOn: wentOnIndices, place)
    }

    private func assertOwnerEnd(of run: GraphRun<State>, cancelled: [Int], wentOn: [Int], _ place: Place) throws {
        guard run.isEndedByOwner else {
            throw TestStoreFailure(place, "the run was not ended by its owner (it finished first, or has no owner)")
        }
        let report = run.report
        let graph = run.graph
        let notCancelled = cancelled.filter { report[$0].outcome != .cancelled }
        if !notCancelled.isEmpty {
            let names = notCancelled.map { "\(graph.label(of: $0)) (node #\($0), \(Self.describe(report[$0])))" }
            throw TestStoreFailure(place, "the owner's end did not cancel: \(names.joined(separator: ", "))")
        }
        let stopped = wentOn.filter { report[$0].outcome == .cancelled }
        if !stopped.isEmpty {
            let names = stopped.map { "\(graph.label(of: $0)) (node #\($0))" }
            throw TestStoreFailure(
                place,
                "the owner's end cancelled \(names.joined(separator: ", ")), which should have gone on "
                    + "(give it a policy: graph.setOwnerEndPolicy(.finish, for:))")
        }
    }

    private static func describe(_ entry: GraphReport.Entry) -> String {
        entry.outcome?.rawValue ?? (entry.start == nil ? "waiting" : "running")
    }
}
