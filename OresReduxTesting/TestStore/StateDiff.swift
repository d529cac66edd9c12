import OresRedux

/// A field-by-field difference of two values, read through `Mirror`: what a failing ``TestStore``
/// assertion prints instead of two walls of text.
///
/// ```
/// state after ShowHome differs from the expected state:
///   profile.name: expected "Ada", actual "Bob"
///   feed.count: expected 3, actual 2
/// ```
public enum StateDiff {
    /// One line per differing leaf, as `path: expected X, actual Y`; empty when the values print alike.
    /// - Parameters:
    ///   - expected: the value the test expected.
    ///   - actual: the value there is.
    ///   - maximumLines: where to stop listing (a line says how many more differ).
    public static func lines(expected: Any, actual: Any, maximumLines: Int = 40) -> [String] {
        var lines: [String] = []
        compare(expected, actual, path: "", into: &lines, depth: 0)
        if lines.count > maximumLines {
            let more = lines.count - maximumLines
            lines = Array(lines.prefix(maximumLines)) + ["… and \(more) more"]
        }
        return lines
    }

    private static func compare(_ expected: Any, _ actual: Any, path: String, into lines: inout [String], depth: Int) {
        let expectedMirror = Mirror(reflecting: expected)
        let actualMirror = Mirror(reflecting: actual)
        let here = path.isEmpty ? "state" : path

        // Optionals: compare what they wrap, or say which one is nil.
        if expectedMirror.displayStyle == .optional || actualMirror.displayStyle == .optional {
            let expectedValue = unwrap(expected, expectedMirror)
            let actualValue = unwrap(actual, actualMirror)
            switch (expectedValue, actualValue) {
            case (nil, nil): return
            case (let expectedValue?, let actualValue?):
                compare(expectedValue, actualValue, path: path, into: &lines, depth: depth)
            default:
                lines.append("\(here): expected \(describe(expectedValue)), actual \(describe(actualValue))")
            }
            return
        }

        let leaf = expectedMirror.children.isEmpty && actualMirror.children.isEmpty
        if leaf || depth > 12 || type(of: expected) != type(of: actual) {
            let expectedText = String(reflecting: expected)
            let actualText = String(reflecting: actual)
            if expectedText != actualText {
                lines.append("\(here): expected \(expectedText), actual \(actualText)")
            }
            return
        }

        switch expectedMirror.displayStyle {
        case .collection, .set, .dictionary:
            let expectedChildren = Array(expectedMirror.children)
            let actualChildren = Array(actualMirror.children)
            if expectedMirror.displayStyle == .collection {
                for index in 0..<min(expectedChildren.count, actualChildren.count) {
                    compare(
                        expectedChildren[index].value, actualChildren[index].value,
                        path: "\(here)[\(index)]", into: &lines, depth: depth + 1)
                }
            } else {
                // Unordered: compare by printed element.
                let expectedSet = Set(expectedChildren.map { String(reflecting: $0.value) })
                let actualSet = Set(actualChildren.map { String(reflecting: $0.value) })
                for missing in expectedSet.subtracting(actualSet).sorted() {
                    lines.append("\(here): missing \(missing)")
                }
                for extra in actualSet.subtracting(expectedSet).sorted() {
                    lines.append("\(here): unexpected \(extra)")
                }
            }
            if expectedChildren.count != actualChildren.count {
                lines.append("\(here).count: expected \(expectedChildren.count), actual \(actualChildren.count)")
            }
        case .enum:
            let expectedCase = String(describing: expected).prefix { $0 != "(" }
            let actualCase = String(describing: actual).prefix { $0 != "(" }
            if expectedCase != actualCase {
                lines.append("\(here): expected \(String(reflecting: expected)), actual \(String(reflecting: actual))")
                return
            }
            compareChildren(expectedMirror, actualMirror, path: path, into: &lines, depth: depth)
        default:
            compareChildren(expectedMirror, actualMirror, path: path, into: &lines, depth: depth)
        }
    }

    private static func compareChildren(
        _ expected: Mirror, _ actual: Mirror, path: String,
        into lines: inout [String], depth: Int
    ) {
        let expectedChildren = Array(expected.children)
        let actualChildren = Array(actual.children)
        for (index, child) in expectedChildren.enumerated() where index < actualChildren.count {
            let name = child.label ?? ".\(index)"
            let childPath = path.isEmpty ? name : "\(path).\(name)"
            compare(child.value, actualChildren[index].value, path: childPath, into: &lines, depth: depth + 1)
        }
    }

    private static func unwrap(_ value: Any, _ mirror: Mirror) -> Any? {
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first?.value
    }

    private static func describe(_ value: Any?) -> String {
        value.map { String(reflecting: $0) } ?? "nil"
    }
}
