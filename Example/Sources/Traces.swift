import Foundation
import OresRedux

/// Writes a run's pictures (Mermaid, Graphviz DOT, Chrome trace) and says where.
@MainActor
func writeTraces(_ report: GraphReport, name: String) {
    do {
        let files = try report.writeTraceFiles(to: traceDirectory, baseName: name)
        print("    pictures: " + files.map(\.relativePath).joined(separator: ", "))
    } catch {
        print("    pictures: could not write to \(traceDirectory.path): \(error)")
    }
}

/// Writes the inspector page of the recorded scenarios and says where: open it in any browser.
@MainActor
func writeInspector(_ recording: InspectorRecording, to directory: URL) {
    let url = directory.appendingPathComponent("inspector.html")
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try recording.writeHTML(to: url, title: "OresRedux Example: four log-in scenarios")
        print(
            "\ninspector: \(url.relativePath) (\(recording.stepCount) steps, \(recording.runCount) runs; open it in a browser)"
        )
    } catch {
        print("\ninspector: could not write \(url.path): \(error)")
    }
}
