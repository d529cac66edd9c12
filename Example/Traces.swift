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
