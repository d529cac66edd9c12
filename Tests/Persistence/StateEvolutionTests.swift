import Foundation
import Testing

@testable import OresRedux

/// An app update changes the saved type: the file of the previous shape loads (an optional field, or
/// a version and a migration), or is kept aside, never silently lost. A directory that cannot be
/// read is an error, not a first launch.
@Suite struct StateEvolutionTests {
    /// The settings as version 1 of the app saved them.
    struct SettingsV1: Codable, Equatable, Sendable {
        var name = "Ada"
        var fontSize = 12
    }
    /// Version 2 added a field as an optional: version 1's file still decodes.
    struct SettingsWithOptional: Codable, Equatable, Sendable {
        var name = "Ada"
        var fontSize = 12
        var theme: String?
    }
    /// Version 2 added a field with a default: synthesized `Decodable` cannot read version 1's file.
    struct SettingsV2: Codable, Equatable, Sendable {
        var name = "Ada"
        var fontSize = 12
        var theme = "light"
    }
    struct Rename: Action { let name: String }

    /// Saves `SettingsV1(name: name)` the way version 1 of the app did, through a real store.
    func saveAsVersionOne(_ name: String, to url: URL, version: Int?) throws {
        let store = Store(initialState: SettingsV1(), reducer: .on(Rename.self) { $0.name = $1.name })
        let persistence =
            if let version {
                StatePersistence(store: store, url: url, version: version)
            } else {
                StatePersistence(store: store, url: url)
            }
        store.dispatch(Rename(name: name))
        try persistence.flush()
    }

    func inTemporaryDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("oresredux-evolution-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    func files(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    // MARK: A directory that cannot be read

    @Test func aPathThroughAFileIsUnreadableNotAFirstLaunch() throws {
        try inTemporaryDirectory { directory in
            let notADirectory = directory.appendingPathComponent("file")
            try Data("x".utf8).write(to: notADirectory)
            let url = notADirectory.appendingPathComponent("state.json")

            let (restored, error) = StatePersistence.restore(from: url, default: SettingsV1(name: "default"))
            #expect(restored.name == "default")
            guard case .unreadable(let path, _) = error else {
                Issue.record("expected .unreadable, got \(String(describing: error))")
                return
            }
            #expect(path == url.path)
        }
    }

    @Test(.enabled(if: getuid() != 0, "root can read any directory"))
    func aDirectoryWithoutPermissionIsUnreadable() throws {
        try inTemporaryDirectory { directory in
            let locked = directory.appendingPathComponent("locked", isDirectory: true)
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
            let url = locked.appendingPathComponent("state.json")
            try saveAsVersionOne("Grace", to: url, version: nil)
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }

            let (_, error) = StatePersistence.restore(from: url, default: SettingsV1())
            if case .unreadable = error {
            } else {
                Issue.record("expected .unreadable, got \(String(describing: error))")
            }
        }
    }

    @Test func aMissingDirectoryIsStillAFirstLaunch() throws {
        try inTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("not-yet/state.json")
            let (restored, error) = StatePersistence.restore(from: url, default: SettingsV1(name: "new"))
            #expect(restored.name == "new")
            #expect(error == nil)
        }
    }

    // MARK: A file that does not decode is kept

    @Test func aCorruptFileIsKeptAsideWithTheDateBeforeTheNextWrite() throws {
        try inTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("state.json")
            let damaged = Data(#"{"name": "Ada", "fontSi"#.utf8)
            try damaged.write(to: url)

            let (restored, error) = StatePersistence.restore(from: url, default: SettingsV1(name: "default"))
            #expect(restored.name == "default")
            let names = try files(in: directory)
            #expect(names.count == 1)
            let kept = try #require(names.first)
            #expect(kept.hasPrefix("state.corrupt-") && kept.hasSuffix(".json"))
            #expect(try Data(contentsOf: directory.appendingPathComponent(kept)) == damaged)
            guard case .corrupt(let path, let description) = error else {
                Issue.record("expected .corrupt, got \(String(describing: error))")
                return
            }
            #expect(path == url.path)
            #expect(description.hasSuffix("the file was kept as \(directory.appendingPathComponent(kept).path)"))

            // The app goes on and saves: the kept file is still there, untouched.
            try saveAsVersionOne("Grace", to: url, version: nil)
            #expect(try files(in: directory) == [kept, "state.json"].sorted())
            #expect(try Data(contentsOf: directory.appendingPathComponent(kept)) == damaged)
        }
    }

    @Test func keepingAsideTwiceInOneSecondKeepsBoth() throws {
        try inTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("state.json")
            let date = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18 11:06:40 UTC
            try Data("first".utf8).write(to: url)
            let first = try StatePersistence.keepAside(url, at: date)
            try Data("second".utf8).write(to: url)
            let second = try StatePersistence.keepAside(url, at: date)
            #expect(first.lastPathComponent == "state.corrupt-2026-11-18-110640.json")
            #expect(second.lastPathComponent == "state.corrupt-2026-11-18-110640-2.json")
            #expect(try String(contentsOf: first, encoding: .utf8) == "first")
            #expect(try String(contentsOf: second, encoding: .utf8) == "second")
        }
    }

    // MARK: The previous shape of the state

    @Test func anOptionalFieldReadsTheFileOfThePreviousShape() throws {
        try inTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("state.json")
            try saveAsVersionOne("Grace", to: url, version: nil)

            let (restored, error) = StatePersistence.restore(from: url, default: SettingsWithOptional())
            #expect(error == nil)
            #expect(restored == SettingsWithOptional(name: "Grace", fontSize: 12, theme: nil))
        }
    }

    @Test func aFieldWithADefaultCannotReadThePreviousShapeSoTheFileIsKept() throws {
        try inTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("state.json")
            try saveAsVersionOne("Grace", to: url, version: nil)
            let saved = try Data(contentsOf: url)

            let (restored, error) = StatePersistence.restore(from: url, default: SettingsV2())
            #expect(restored == SettingsV2())
            if case .corrupt = error {} else { Issue.record("expected .corrupt, got \(String(describing: error))") }
            let kept = try #require(try files(in: directory).first { $0.hasPrefix("state.corrupt-") })
            #expect(try Data(contentsOf: directory.appendingPathComponent(kept)) == saved)
        }
    }

    static func migrate(_ saved: StatePersistence.SavedState) throws -> SettingsV2 {
        switch saved.version {
        case 0, 1:
            let old = try saved.decode(SettingsV1.self)
            return SettingsV2(name: old.name, fontSize: old.fontSize, theme: "light")
        default:
            throw CocoaError(.coderReadCorrupt)
        }
    }

    @Test func aVersionedFileOfThePreviousVersionIsMigrated() throws {
        try inTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("state.json")
            try saveAsVersionOne("Grace", to: url, version: 1)
            #expect(
                try canonicalJSON(Data(contentsOf: url))
                    == canonicalJSON(#"{"state":{"fontSize":12,"name":"Grace"},"version":1}"#))

            let (restored, error) = StatePersistence.restore(
                from: url, default: SettingsV2(), version: 2, migrate: Self.migrate)
            #expect(error == nil)
            #expect(restored == SettingsV2(name: "Grace", fontSize: 12, theme: "light"))
        }
    }

    @Test func aFileSavedWithoutAVersionIsVersionZero() throws {
        try inTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("state.json")
            try saveAsVersionOne("Grace", to: url, version: nil)
            let versions = LockedValue<[Int]>([])
            let restored = try StatePersistence.load(SettingsV2.self, from: url, version: 2) { saved in
                versions.withLock { $0.append(saved.version) }
                return try Self.migrate(saved)
            }
            #expect(versions.withLock { $0 } == [0])
            #expect(restored.name == "Grace")
        }
    }

    @Test func theCurrentVersionDecodesWithoutMigrating() throws {
        try inTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("state.json")
            try saveAsVersionOne("Grace", to: url, version: 1)
            let restored = try StatePersistence.load(SettingsV1.self, from: url, version: 1) { _ in
                Issue.record("the current version needs no migration")
                return SettingsV1()
            }
            #expect(restored.name == "Grace")
        }
    }

    @Test func aNewerVersionIsNotReadAndIsKept() throws {
        try inTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("state.json")
            try saveAsVersionOne("Grace", to: url, version: 3)
            let (restored, error) = StatePersistence.restore(
                from: url, default: SettingsV2(), version: 2, migrate: Self.migrate)
            #expect(restored == SettingsV2())
            guard case .corrupt(_, let description) = error else {
                Issue.record("expected .corrupt, got \(String(describing: error))")
                return
            }
            #expect(description.hasPrefix("it was saved by version 3, newer than this app's 2"))
            #expect(try files(in: directory).contains { $0.hasPrefix("state.corrupt-") })
        }
    }

    @Test func aMigrationThatThrowsIsCorruptAndTheFileIsKept() throws {
        try inTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("state.json")
            try Data(#"{"state":{"nom":"Grace"},"version":1}"#.utf8).write(to: url)
            let (_, error) = StatePersistence.restore(
                from: url, default: SettingsV2(), version: 2, migrate: Self.migrate)
            guard case .corrupt(_, let description) = error else {
                Issue.record("expected .corrupt, got \(String(describing: error))")
                return
            }
            #expect(description.hasPrefix("migrating it from version 1: "))
            #expect(try files(in: directory).contains { $0.hasPrefix("state.corrupt-") })
        }
    }
}
