import OresRedux

/// A failed ``TestStore`` assertion or wait: where it was made and what went wrong.
///
/// The place is the test's own line, captured by the default arguments (`#fileID`, `#filePath`,
/// `#line`, `#column`) of the call that failed. The library imports neither Testing nor XCTest, so
/// it throws rather than records: the `try` in the test is where the error surfaces, and
/// ``fileID``, ``filePath``, ``line`` and ``column`` are exactly the fields of Swift Testing's
/// `SourceLocation` (and XCTest's `file:line:`), for a test helper that wants the IDE to mark the
/// assertion itself:
///
/// ```swift
/// Issue.record(failure.message, sourceLocation: SourceLocation(
///     fileID: failure.fileID, filePath: failure.filePath, line: failure.line, column: failure.column))
/// ```
public struct TestStoreFailure: Error, Sendable, CustomStringConvertible {
    /// The file of the failing call, as `#fileID` gives it (`MyAppTests/HomeTests.swift`).
    public let fileID: String
    /// The full path of that file, as `#filePath` gives it.
    public let filePath: String
    /// The line of the failing call.
    public let line: Int
    /// The column of the failing call.
    public let column: Int
    /// What was expected and what happened, with a state diff or the work in flight where one applies.
    public let message: String

    /// Creates a failure at a place in a test.
    public init(fileID: String, filePath: String, line: Int, column: Int, _ message: String) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
        self.message = message
    }

    init(_ place: Place, _ message: String) {
        self.init(fileID: place.fileID, filePath: place.filePath, line: place.line, column: place.column, message)
    }

    /// `File.swift:42`: the call that failed.
    public var location: String { "\(fileID):\(line)" }

    /// `location: message`.
    public var description: String { "\(location): \(message)" }
}

/// Where a ``TestStore`` call was made.
struct Place: Sendable {
    let fileID: String
    let filePath: String
    let line: Int
    let column: Int
}
