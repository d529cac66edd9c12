import Foundation

// MARK: Keeping a file that cannot be read

extension StatePersistence {
    /// Moves the file at `url` aside, beside it, under a name with the date and time (UTC), so that
    /// nothing writing to `url` can overwrite it: `state.json` becomes
    /// `state.corrupt-2026-11-22-153000.json` (then `...-153000-2.json` if that name is taken).
    ///
    /// ``restore(from:default:)`` calls it for a file that does not decode; call it yourself when
    /// you ``load(_:from:)`` and decide to start from a default.
    /// - Returns: where the file now is.
    /// - Throws: ``PersistenceError/writeFailed(path:description:)`` if it could not be moved; the
    ///   file is then still at `url`.
    @discardableResult
    public static func keepAside(_ url: URL, at date: Date = Date()) throws(PersistenceError) -> URL {
        let directory = url.deletingLastPathComponent()
        let stem = url.deletingPathExtension().lastPathComponent
        let fileExtension = url.pathExtension.isEmpty ? "" : ".\(url.pathExtension)"
        let stamp = dateStamp(date)
        var attempt = 1
        while true {
            let suffix = attempt == 1 ? "" : "-\(attempt)"
            let kept = directory.appendingPathComponent("\(stem).corrupt-\(stamp)\(suffix)\(fileExtension)")
            if !FileManager.default.fileExists(atPath: kept.path) {
                do {
                    try FileManager.default.moveItem(at: url, to: kept)
                    return kept
                } catch {
                    throw .writeFailed(path: kept.path, description: String(describing: error))
                }
            }
            attempt += 1
        }
    }

    /// `2026-11-22-153000`: the date and time in UTC, safe in a file name on every file system.
    static func dateStamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String {
            let text = String(value ?? 0)
            return text.count < 2 ? "0" + text : text
        }
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day))-"
            + "\(two(parts.hour))\(two(parts.minute))\(two(parts.second))"
    }
}

// MARK: Versions

extension StatePersistence {
    /// A saved file as the migration closure of ``load(_:from:version:migrate:)`` sees it: the version
    /// it was written with, and a way to decode it as the type the app used then.
    public struct SavedState: Sendable {
        /// The version the file was written with: the `version` given to the saving
        /// ``StatePersistence``, or 0 for a file saved without one.
        public let version: Int
        /// The whole file, as saved.
        public let data: Data
        /// Whether the file is a versioned envelope (`{"state":...,"version":...}`), not a bare state.
        let enveloped: Bool

        /// The saved state decoded as `type`, the shape the app saved at ``version``.
        /// - Throws: the decoder's error when the file does not decode as `type`.
        public func decode<Old: Decodable>(_ type: Old.Type = Old.self) throws -> Old {
            let decoder = JSONDecoder()
            guard enveloped else { return try decoder.decode(Old.self, from: data) }
            return try decoder.decode(DecodedEnvelope<Old>.self, from: data).state
        }
    }

    /// Saves the part of `store`'s state that `select` picks, to `url`, after it changes, marked with
    /// `version`, so that a later version of the app can read it with
    /// ``load(_:from:version:migrate:)`` or ``restore(from:default:version:migrate:)``.
    ///
    /// Raise `version` when the saved type changes in a way its `Decodable` cannot read from the
    /// older file (a field renamed, removed, or added without being optional), and teach `migrate`
    /// how to read the older version. The other parameters are those of
    /// ``init(store:url:select:debounce:clock:writer:onError:)``.
    public convenience init<State: Sendable, Saved: Encodable & Sendable>(
        store: Store<State>, url: URL, version: Int,
        select: @escaping @Sendable (State) -> Saved,
        debounce: Duration = .seconds(1),
        clock: (any Clock<Duration>)? = nil,
        writer: @escaping Writer = { data, url in try StatePersistence.writeAtomically(data, to: url) },
        onError: @escaping @Sendable (PersistenceError) -> Void = StatePersistence.printToStandardError
    ) {
        self.init(
            store: store, url: url, select: { VersionedEnvelope(state: select($0), version: version) },
            debounce: debounce, clock: clock, writer: writer, onError: onError)
    }

    /// Saves `store`'s whole state to `url` after it changes, marked with `version` (see
    /// ``init(store:url:version:select:debounce:clock:writer:onError:)``).
    public convenience init<State: Sendable & Encodable>(
        store: Store<State>, url: URL, version: Int,
        debounce: Duration = .seconds(1),
        clock: (any Clock<Duration>)? = nil,
        writer: @escaping Writer = { data, url in try StatePersistence.writeAtomically(data, to: url) },
        onError: @escaping @Sendable (PersistenceError) -> Void = StatePersistence.printToStandardError
    ) {
        self.init(
            store: store, url: url, version: version, select: { $0 }, debounce: debounce, clock: clock,
            writer: writer, onError: onError)
    }

    /// Reads a state saved with a version, bringing an older version up to date with `migrate`.
    ///
    /// A file of `version` decodes as `type`. A file of an older version, or one saved without a
    /// version (version 0), goes to `migrate`, which decodes it as the type the app saved then
    /// (``SavedState/decode(_:)``) and returns today's state. A file of a newer version than
    /// `version` (written by a later release of the app) is not read.
    /// - Throws: what ``load(_:from:)`` throws; ``PersistenceError/corrupt(path:description:)`` also
    ///   when `migrate` throws, or the file's version is newer than `version`.
    public static func load<T: Decodable>(
        _ type: T.Type = T.self, from url: URL, version: Int,
        migrate: (SavedState) throws -> T
    ) throws(PersistenceError) -> T {
        let data = try read(url)
        let path = url.path
        let header = savedVersion(of: data)
        let saved = SavedState(version: header ?? 0, data: data, enveloped: header != nil)
        do {
            if saved.version == version { return try saved.decode(T.self) }
        } catch {
            throw .corrupt(path: path, description: String(describing: error))
        }
        guard saved.version < version else {
            throw .corrupt(
                path: path,
                description: "it was saved by version \(saved.version), newer than this app's \(version)")
        }
        do {
            return try migrate(saved)
        } catch {
            throw .corrupt(
                path: path, description: "migrating it from version \(saved.version): \(String(describing: error))")
        }
    }

    /// The state saved at `url` with a version, migrated if it is older, or `initial` when there is
    /// none or it cannot be used; never throws, never loses a file: as ``restore(from:default:)``,
    /// with the reading of ``load(_:from:version:migrate:)``.
    public static func restore<T: Decodable>(
        from url: URL, default initial: T, version: Int,
        migrate: (SavedState) throws -> T
    ) -> (state: T, error: PersistenceError?) {
        restoring(url, initial) { () throws(PersistenceError) -> T in
            try load(T.self, from: url, version: version, migrate: migrate)
        }
    }

    /// The `version` of a versioned file; `nil` for a file saved without one (or not a JSON object).
    static func savedVersion(of data: Data) -> Int? {
        (try? JSONDecoder().decode(VersionHeader.self, from: data))?.version
    }
}

/// What a versioned ``StatePersistence`` writes around the saved state: `{"state":{...},"version":2}`.
struct VersionedEnvelope<Saved: Encodable & Sendable>: Encodable, Sendable {
    let state: Saved
    let version: Int
}

/// A versioned file read back, its state as `Saved`.
private struct DecodedEnvelope<Saved: Decodable>: Decodable {
    let state: Saved
    let version: Int
}

/// Just the version of an envelope: it must have both `version` and `state`.
private struct VersionHeader: Decodable {
    let version: Int

    enum CodingKeys: String, CodingKey { case version, state }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.state) else {
            throw DecodingError.keyNotFound(
                CodingKeys.state, .init(codingPath: [], debugDescription: "not a versioned file"))
        }
        version = try container.decode(Int.self, forKey: .version)
    }
}
