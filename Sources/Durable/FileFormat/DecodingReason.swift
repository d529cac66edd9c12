import Foundation

/// Why bytes did not decode, as a sentence for a person: what was wrong and where (`at photos[0]`),
/// rather than Swift's dump of a `DecodingError` and its context.
enum DecodingReason {
    /// The reason `error` gives; any error other than a `DecodingError` as it describes itself.
    static func of(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .keyNotFound(let key, let context):
            return "no value for the key \"\(key.stringValue)\"" + place(context)
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let underlying = context.underlyingError.map { " (\($0))" } ?? ""
            return context.debugDescription + underlying + place(context)
        @unknown default:
            return "\(error)"
        }
    }

    /// ` at photos[0].url`, or nothing at the top level.
    private static func place(_ context: DecodingError.Context) -> String {
        var path = ""
        for key in context.codingPath {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += (path.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return path.isEmpty ? "" : " at \(path)"
    }
}
