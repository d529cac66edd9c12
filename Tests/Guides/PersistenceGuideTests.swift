import Foundation
import OresRedux
import Testing

// The snippets of Sources/OresRedux.docc/RunningWork/Persistence.md, with the types they need.

enum PersistenceGuide {
    struct Settings: Codable, Equatable, Sendable {
        var theme = "light"
        var fontSize: Int?  // added in version 2: version 1's files have no "fontSize"
    }
    struct AppState: Equatable, Sendable {
        var settings = Settings()
        var count = 0
    }
    struct SetTheme: Action { let theme: String }
    static let appReducer = Reducer<AppState>.on(SetTheme.self) { $0.settings.theme = $1.theme }

    /// The versioned snippet's types: version 1 saved `SettingsV1`; version 2 saves `VersionedSettings`.
    enum Versioned {
        struct SettingsV1: Codable { var dark: Bool }
        struct Settings: Codable, Equatable, Sendable { var theme = "light"; var fontSize = 14 }
        struct AppState: Equatable, Sendable { var settings = Settings() }
        enum MigrationError: Error { case unknownVersion(Int) }
    }

    static func inTemporaryDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("oresredux-guide-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }
}

@Suite("Guide: Saving and Restoring State")
struct PersistenceGuideTests {
    typealias Settings = PersistenceGuide.Settings
    typealias AppState = PersistenceGuide.AppState
    typealias SetTheme = PersistenceGuide.SetTheme
    let appReducer = PersistenceGuide.appReducer

    @Test("Persistence guide: save the settings, flush, restore them at the next launch")
    func saveAndRestore() throws {
        try PersistenceGuide.inTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("settings.json")
            let store = Store(initialState: AppState(), reducer: appReducer)
            let persistence = StatePersistence(store: store, url: url, select: \.settings)

            store.dispatch(SetTheme(theme: "dark"))  // written within a second, once for a whole burst
            try persistence.flush()  // now: when the app goes to the background or quits

            var logged: [String] = []
            func log(_ line: String) { logged.append(line) }
            let (settings, error) = StatePersistence.restore(from: url, default: Settings())
            if let error { log("settings not restored: \(error)") }
            let restored = Store(initialState: AppState(settings: settings), reducer: appReducer)

            #expect(restored.state.settings.theme == "dark")
            #expect(logged.isEmpty)
        }
    }

    @Test("Persistence guide: a damaged file gives the default and is kept aside, named with the date")
    func damagedFileIsKept() throws {
        try PersistenceGuide.inTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("settings.json")
            try Data(#"{"theme": "da"#.utf8).write(to: url)
            let (settings, error) = StatePersistence.restore(from: url, default: Settings())
            #expect(settings == Settings())
            if case .corrupt = error {} else { Issue.record("expected .corrupt, got \(String(describing: error))") }
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(names.count == 1 && names[0].hasPrefix("settings.corrupt-") && names[0].hasSuffix(".json"))
        }
    }

    @Test("Persistence guide: an optional field reads version 1's file")
    func optionalField() throws {
        try PersistenceGuide.inTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("settings.json")
            try Data(#"{"theme":"dark"}"#.utf8).write(to: url)  // version 1: no fontSize
            let (settings, error) = StatePersistence.restore(from: url, default: Settings())
            #expect(error == nil)
            #expect(settings == Settings(theme: "dark", fontSize: nil))
        }
    }

    @Test("Persistence guide: save with a version, migrate version 1's file")
    func versionAndMigration() throws {
        typealias SettingsV1 = PersistenceGuide.Versioned.SettingsV1
        typealias Settings = PersistenceGuide.Versioned.Settings
        typealias MigrationError = PersistenceGuide.Versioned.MigrationError
        struct SetFontSize: Action { let size: Int }
        let appReducer = Reducer<PersistenceGuide.Versioned.AppState>.on(SetFontSize.self) {
            $0.settings.fontSize = $1.size
        }

        try PersistenceGuide.inTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("settings.json")
            try Data(#"{"dark":true}"#.utf8).write(to: url)  // what version 1 saved, without a version

            let (settings, error) = StatePersistence.restore(from: url, default: Settings(), version: 2) { saved in
                switch saved.version {
                case 0, 1:  // 0: saved before versions were used
                    let old = try saved.decode(SettingsV1.self)
                    return Settings(theme: old.dark ? "dark" : "light", fontSize: 14)
                default:
                    throw MigrationError.unknownVersion(saved.version)
                }
            }
            #expect(error == nil)
            #expect(settings == Settings(theme: "dark", fontSize: 14))

            let store = Store(
                initialState: PersistenceGuide.Versioned.AppState(settings: settings), reducer: appReducer)
            let persistence = StatePersistence(store: store, url: url, version: 2, select: \.settings)
            store.dispatch(SetFontSize(size: 16))
            try persistence.flush()
            #expect(
                try canonicalJSON(Data(contentsOf: url))
                    == canonicalJSON(#"{"state":{"fontSize":16,"theme":"dark"},"version":2}"#))
        }
    }
}
