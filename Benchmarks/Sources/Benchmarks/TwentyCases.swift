import OresRedux

// A real app's reducer: twenty action types, each handled by one case. Written out by hand (no
// macro) so that the combined form and the `if let ... as?` chain read the same.

struct Case1: Action { var amount: Int }
struct Case2: Action { var amount: Int }
struct Case3: Action { var amount: Int }
struct Case4: Action { var amount: Int }
struct Case5: Action { var amount: Int }
struct Case6: Action { var amount: Int }
struct Case7: Action { var amount: Int }
struct Case8: Action { var amount: Int }
struct Case9: Action { var amount: Int }
struct Case10: Action { var amount: Int }
struct Case11: Action { var amount: Int }
struct Case12: Action { var amount: Int }
struct Case13: Action { var amount: Int }
struct Case14: Action { var amount: Int }
struct Case15: Action { var amount: Int }
struct Case16: Action { var amount: Int }
struct Case17: Action { var amount: Int }
struct Case18: Action { var amount: Int }
struct Case19: Action { var amount: Int }
struct Case20: Action { var amount: Int }

/// An action no case handles.
struct Unhandled: Action { var amount: Int }

/// Twenty `.on` cases combined, as the README writes a reducer.
func combinedTwentyCases() -> Reducer<BenchState> {
    .combine(
        .on(Case1.self) { state, action in state.count &+= action.amount &* 1 },
        .on(Case2.self) { state, action in state.count &+= action.amount &* 2 },
        .on(Case3.self) { state, action in state.count &+= action.amount &* 3 },
        .on(Case4.self) { state, action in state.count &+= action.amount &* 4 },
        .on(Case5.self) { state, action in state.count &+= action.amount &* 5 },
        .on(Case6.self) { state, action in state.count &+= action.amount &* 6 },
        .on(Case7.self) { state, action in state.count &+= action.amount &* 7 },
        .on(Case8.self) { state, action in state.count &+= action.amount &* 8 },
        .on(Case9.self) { state, action in state.count &+= action.amount &* 9 },
        .on(Case10.self) { state, action in state.count &+= action.amount &* 10 },
        .on(Case11.self) { state, action in state.count &+= action.amount &* 11 },
        .on(Case12.self) { state, action in state.count &+= action.amount &* 12 },
        .on(Case13.self) { state, action in state.count &+= action.amount &* 13 },
        .on(Case14.self) { state, action in state.count &+= action.amount &* 14 },
        .on(Case15.self) { state, action in state.count &+= action.amount &* 15 },
        .on(Case16.self) { state, action in state.count &+= action.amount &* 16 },
        .on(Case17.self) { state, action in state.count &+= action.amount &* 17 },
        .on(Case18.self) { state, action in state.count &+= action.amount &* 18 },
        .on(Case19.self) { state, action in state.count &+= action.amount &* 19 },
        .on(Case20.self) { state, action in state.count &+= action.amount &* 20 }
    )
}

/// The same twenty cases written by hand as one `if let ... as?` chain.
func handWrittenTwentyCases() -> Reducer<BenchState> {
    Reducer { state, action in
        if let action = action as? Case1 {
            state.count &+= action.amount &* 1
        } else if let action = action as? Case2 {
            state.count &+= action.amount &* 2
        } else if let action = action as? Case3 {
            state.count &+= action.amount &* 3
        } else if let action = action as? Case4 {
            state.count &+= action.amount &* 4
        } else if let action = action as? Case5 {
            state.count &+= action.amount &* 5
        } else if let action = action as? Case6 {
            state.count &+= action.amount &* 6
        } else if let action = action as? Case7 {
            state.count &+= action.amount &* 7
        } else if let action = action as? Case8 {
            state.count &+= action.amount &* 8
        } else if let action = action as? Case9 {
            state.count &+= action.amount &* 9
        } else if let action = action as? Case10 {
            state.count &+= action.amount &* 10
        } else if let action = action as? Case11 {
            state.count &+= action.amount &* 11
        } else if let action = action as? Case12 {
            state.count &+= action.amount &* 12
        } else if let action = action as? Case13 {
            state.count &+= action.amount &* 13
        } else if let action = action as? Case14 {
            state.count &+= action.amount &* 14
        } else if let action = action as? Case15 {
            state.count &+= action.amount &* 15
        } else if let action = action as? Case16 {
            state.count &+= action.amount &* 16
        } else if let action = action as? Case17 {
            state.count &+= action.amount &* 17
        } else if let action = action as? Case18 {
            state.count &+= action.amount &* 18
        } else if let action = action as? Case19 {
            state.count &+= action.amount &* 19
        } else if let action = action as? Case20 {
            state.count &+= action.amount &* 20
        }
    }
}
