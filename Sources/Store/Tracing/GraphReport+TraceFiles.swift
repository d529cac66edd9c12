import Foundation

extension GraphReport {
    /// Writes the three pictures of the run beside each other, to open after a failing test or a bug
    /// report: `<baseName>.mmd` (``mermaid``), `<baseName>.dot` (``dot``) and `<baseName>.trace.json`
    /// (``chromeTrace``).
    ///
    /// The directory is created if it is missing; existing files of the same names are replaced. Each
    /// file is written atomically (a reader never sees half of one).
    /// - Parameters:
    ///   - directory: where the files go.
    ///   - baseName: the file name without extension, such as `"login-run"`.
    /// - Returns: the URLs written, in the order `.mmd`, `.dot`, `.trace.json`.
    /// - Throws: the file system's error if the directory cannot be created or a file cannot be written.
    @discardableResult
    public func writeTraceFiles(to directory: URL, baseName: String) throws -> [URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let files: [(String, String)] = [
            ("\(baseName).mmd", mermaid),
            ("\(baseName).dot", dot),
            ("\(baseName).trace.json", chromeTrace),
        ]
        return try files.map { name, text in
            let url = directory.appendingPathComponent(name, isDirectory: false)
            try Data(text.utf8).write(to: url, options: .atomic)
            return url
        }
    }
}
