import Foundation

/// The protection the library gives the files that hold an app's data (the durable journal and the
/// saved state): one decision, so the journal and the state beside it are protected alike.
///
/// - Everywhere: files are created with mode `0600` and folders with `0700` (by their creators).
/// - On iOS, tvOS, watchOS and visionOS also the data protection class
///   `completeUntilFirstUserAuthentication`: unreadable after a restart until the first unlock,
///   readable from then on, so a relaunch in the background (a push, a background fetch) can resume
///   durable runs.
enum FileProtection {
    /// The mode of every file the library creates for an app's data.
    static let fileMode: UInt16 = 0o600

    /// Gives `path` the platform's data protection class, where there is one; the system's reason
    /// when it could not.
    static func protect(_ path: String) -> String? {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            do {
                try FileManager.default.setAttributes(
                    [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication], ofItemAtPath: path)
            } catch {
                return "\(error)"
            }
        #endif
        return nil
    }
}
