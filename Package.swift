// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "OresRedux",
    // Observation (ObservedStore) sets the Apple floor; nothing else in the library needs more.
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "OresRedux", targets: ["OresRedux"]),
        // TestStore, VirtualClock, HeldCalls: for test targets, so an app does not ship them.
        .library(name: "OresReduxTesting", targets: ["OresReduxTesting"]),
        // The inspector served live to a browser while the app runs: for debug builds, so a release
        // build leaves the server out.
        .library(name: "OresReduxLive", targets: ["OresReduxLive"]),
        // Server data in the state: queries, mutations and the order promise between them.
        .library(name: "OresReduxQuery", targets: ["OresReduxQuery"]),
    ],
    targets: [
        // The core: the three folders the package is known by, and durable runs and the inspector
        // in folders of their own. Each other product has a top-level folder of its own beside
        // Sources: a target at `Sources` would otherwise have to exclude them.
        .target(
            name: "OresRedux", path: "Sources",
            sources: ["Actions", "Reducers", "Store", "Durable", "Inspector"]),
        .target(name: "OresReduxTesting", dependencies: ["OresRedux"], path: "OresReduxTesting"),
        .target(name: "OresReduxLive", dependencies: ["OresRedux"], path: "OresReduxLive"),
        .target(name: "OresReduxQuery", dependencies: ["OresRedux"], path: "OresReduxQuery"),
        .executableTarget(
            name: "Example", dependencies: ["OresRedux", "OresReduxLive", "OresReduxQuery"], path: "Example/Sources"),
        // Benchmarks only: counts the allocations of the Benchmarks process (see its source).
        .target(name: "AllocationCounter", path: "Benchmarks/Sources/AllocationCounter"),
        .executableTarget(
            name: "Benchmarks", dependencies: ["OresRedux", "OresReduxLive", "OresReduxQuery", "AllocationCounter"],
            path: "Benchmarks/Sources/Benchmarks"),
        // The kill soak's child process (Tests/Durable/DurableKillSoakTests.swift): not a product.
        .executableTarget(name: "DurableSoakChild", dependencies: ["OresRedux"], path: "Tools/DurableSoakChild"),
        // The durable mutation kill test's child (Tests/Query/QueryDurableMutationTests.swift): not a product.
        .executableTarget(
            name: "QueryMutationChild", dependencies: ["OresRedux", "OresReduxQuery"], path: "Tools/QueryMutationChild"),
        // The tests depend on the soak's child so that every way of building them (swift build
        // --build-tests, swift test, Xcode's Test action) builds it beside them, and on the Example
        // so that a test replays the journal it keeps with its own builders (`@testable import
        // Example`: its main.swift does not run).
        .testTarget(
            name: "OresReduxTests",
            dependencies: [
                "OresRedux", "OresReduxTesting", "OresReduxLive", "OresReduxQuery", "DurableSoakChild", "Example",
                "QueryMutationChild",
            ],
            path: "Tests",
            // Run by LiveHostileClientTests from its place in the source tree, not from the bundle.
            resources: [.copy("Live/hostile-clients.py")]),
    ],
    swiftLanguageModes: [.v6]
)
