// The OresRedux benchmarks: `swift run -c release Benchmarks [--quick] [--json PATH]`.
//
// Everything runs in `runBenchmarks`, on a detached task, so that nothing measured runs on the main
// actor (the baselines' tasks and the store's go to the global executor). The main thread just
// waits: no `dispatch_main`, which also keeps the binary usable under valgrind.
import Foundation
import Synchronization

let exitStatus = Atomic<Int32>(0)
let finished = DispatchSemaphore(value: 0)
Task.detached { [arguments = Array(CommandLine.arguments.dropFirst())] in
    exitStatus.store(await runBenchmarks(arguments), ordering: .releasing)
    finished.signal()
}
finished.wait()
exit(exitStatus.load(ordering: .acquiring))
