import OresRedux

/// Whether a ``TestStore`` requires every received action to be asserted.
public enum Exhaustivity: Sendable, Equatable {
    /// Every action that reaches the reducer must be asserted, in order (the default).
    case on
    /// `receive` skips actions it was not asked for; `finish` does not list unasserted ones.
    case off
}
