// The OresRedux benchmarks: `swift run -c release Benchmarks [--quick] [--json PATH]`.
//
// Everything runs in `runBenchmarks`, on a detached task, so that nothing measured runs on the main
// actor (the baselines' tasks and the store's go to the global executor). The main thread just
// waits: no `dispatch_main`, which also keeps the binary usable under valgrind.
import Foundation
import OresRedux

// The library's lock, not `Atomic`, which needs macOS 15 / iOS 18 (above the package's floor).
let exitStatus = LockedValue<Int32>(0)
let finished = DispatchSemaphore(value: 0)
Task.detached { [arguments = Array(CommandLine.arguments.dropFirst())] in
    let status = await runBenchmarks(arguments)
    exitStatus.withLock { $0 = status }
    finished.signal()
}
finished.wait()
exit(exitStatus.withLock { $0 })
