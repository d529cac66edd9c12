import OresRedux

extension ActionGraph {
    /// Whether `node` waits, directly or not, on `ancestor`.
    func dependsOn(_ node: Int, _ ancestor: Int) -> Bool {
        var stack = [node]
        var seen = Set<Int>()
        while let current = stack.popLast() {
            for prerequisite in prerequisites(of: current) {
                let prerequisite = Int(prerequisite)
                if prerequisite == ancestor { return true }
                if seen.insert(prerequisite).inserted { stack.append(prerequisite) }
            }
        }
        return false
    }
}
