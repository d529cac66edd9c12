/// The action types a record may contain, each under a stable name: what turns an `any Action`
/// into JSON and back.
///
/// Actions are existentials, so JSON alone cannot say which type to build; register every `Codable`
/// action type the app dispatches:
///
/// ```swift
/// var registry = ActionCodingRegistry()
/// registry.register(Increment.self)                 // named "Increment"
/// registry.register(SetName.self, as: "set-name")   // or a name of your choice
/// let data = try recorder.recording.jsonData(using: registry)
/// let loaded = try ActionRecording(jsonData: data, using: registry)
/// ```
///
/// Names are what the file keeps: renaming a type keeps old files readable only if it is registered
/// under its old name.
public struct ActionCodingRegistry: Sendable {
    private struct Coding: Sendable {
        let name: String
        let type: ObjectIdentifier
        let decode: @Sendable (any Decoder) throws -> any Action
        let encode: @Sendable (any Action, any Encoder) throws -> Void
    }

    private var byName: [String: Coding] = [:]
    private var names: [ObjectIdentifier: String] = [:]

    /// Creates an empty registry.
    public init() {}

    /// Creates a registry of `types`, each under its type name.
    public init(_ types: any (Action & Codable).Type...) {
        for type in types { register(type) }
    }

    /// Registers `type` under `name` (by default its type name, `String(describing: type)`), so its
    /// actions can be encoded and decoded. Registering the same type again under the same name does
    /// nothing; under a new name, it encodes with the new name and still decodes the old.
    /// - Precondition: `name` is not already taken by another type.
    public mutating func register<A: Action & Codable>(_ type: A.Type, as name: String? = nil) {
        let name = name ?? String(describing: type)
        let identifier = ObjectIdentifier(type)
        if let existing = byName[name] {
            precondition(
                existing.type == identifier,
                "OresRedux: the action name \"\(name)\" is registered for two types; pass `as:` to tell them apart")
        }
        byName[name] = Coding(
            name: name, type: identifier,
            decode: { decoder in try A(from: decoder) },
            encode: { action, encoder in
                guard let action = action as? A else { return }
                try action.encode(to: encoder)
            })
        names[identifier] = name
    }

    /// Every registered name, sorted.
    public var registeredNames: [String] { byName.keys.sorted() }

    /// The name `action`'s type is registered under.
    /// - Throws: ``ActionCodingError/unregisteredType(_:)`` when it is not registered.
    public func name(of action: any Action) throws(ActionCodingError) -> String {
        guard let name = names[ObjectIdentifier(type(of: action))] else {
            throw .unregisteredType(String(describing: type(of: action)))
        }
        return name
    }

    // MARK: Used by ActionRecording's Codable conformance

    static let userInfoKey = CodingUserInfoKey(rawValue: "OresRedux.ActionCodingRegistry")!

    static func from(_ userInfo: [CodingUserInfoKey: Any]) throws -> ActionCodingRegistry {
        guard let registry = userInfo[userInfoKey] as? ActionCodingRegistry else {
            throw ActionCodingError.invalidDocument(
                "recorded actions can only be coded by ActionRecording.jsonData(using:) and ActionRecording(jsonData:using:)"
            )
        }
        return registry
    }

    func decode(_ name: String, from decoder: any Decoder) throws -> any Action {
        guard let coding = byName[name] else {
            throw ActionCodingError.unknownType(name, registered: registeredNames)
        }
        do {
            return try coding.decode(decoder)
        } catch {
            throw ActionCodingError.invalidPayload(type: name, description: String(describing: error))
        }
    }

    func encode(_ action: any Action, to encoder: any Encoder) throws {
        let name = try name(of: action)
        guard let coding = byName[name] else { throw ActionCodingError.unregisteredType(name) }
        do {
            try coding.encode(action, encoder)
        } catch {
            throw ActionCodingError.encodingFailed(type: name, description: String(describing: error))
        }
    }
}

/// Why a record could not be written as JSON or read back, with a sentence that says what to fix.
public enum ActionCodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An action to encode has a type that is not registered (the associated value is its type name).
    case unregisteredType(String)
    /// A record names a type the registry does not know; `registered` lists the names it does.
    case unknownType(String, registered: [String])
    /// A payload did not decode as the type it was recorded under.
    case invalidPayload(type: String, description: String)
    /// An action's own `encode(to:)` threw.
    case encodingFailed(type: String, description: String)
    /// The data is not a record written by ``ActionRecording/jsonData(using:)``.
    case invalidDocument(String)

    /// A sentence for a person.
    public var description: String {
        switch self {
        case .unregisteredType(let type):
            "the action type \(type) is not registered; call registry.register(\(type).self) before encoding"
        case .unknownType(let name, let registered):
            "the record contains an action of type \"\(name)\", which is not registered (registered: "
                + (registered.isEmpty ? "none" : registered.joined(separator: ", ")) + ")"
        case .invalidPayload(let type, let description):
            "the payload of an action of type \"\(type)\" could not be decoded: \(description)"
        case .encodingFailed(let type, let description):
            "an action of type \"\(type)\" could not be encoded: \(description)"
        case .invalidDocument(let description):
            "the data is not an action record: \(description)"
        }
    }
}
