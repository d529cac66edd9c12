// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "OresRedux",
    // `Synchronization.Atomic` (subscription flags, id counters) sets the Apple floor.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "OresRedux", targets: ["OresRedux"]),
    ],
    targets: [
        .target(name: "OresRedux", path: "Sources"),
        .executableTarget(name: "Example", dependencies: ["OresRedux"], path: "Example", exclude: ["fixtures"]),
        // Benchmarks only: counts the allocations of the Benchmarks process (see its source).
        .target(name: "AllocationCounter", path: "Benchmarks/Sources/AllocationCounter"),
        .executableTarget(name: "Benchmarks", dependencies: ["OresRedux", "AllocationCounter"],
                          path: "Benchmarks/Sources/Benchmarks"),
        .testTarget(name: "OresReduxTests", dependencies: ["OresRedux"], path: "Tests"),
    ],
    swiftLanguageModes: [.v6]
)
