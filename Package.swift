// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "altbench",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "altbench", targets: ["altbench"]),
        .library(name: "AltBenchCore", targets: ["AltBenchCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        .package(url: "https://github.com/JohnSundell/Plot", from: "0.14.0"),
    ],
    targets: [
        .target(
            name: "AltBenchCore",
            dependencies: [
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "AltBenchHTTP",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "AltBenchOpenAI",
            dependencies: [
                "AltBenchCore", "AltBenchHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "AltBenchStore",
            dependencies: [
                "AltBenchCore",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "AltBenchReport",
            dependencies: ["AltBenchCore", .product(name: "Plot", package: "Plot")],
            swiftSettings: strict
        ),
        .target(
            name: "AltBenchApp",
            dependencies: [
                "AltBenchCore", "AltBenchHTTP", "AltBenchOpenAI", "AltBenchProxy", "AltBenchStore", "AltBenchReport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "AltBenchProxy",
            dependencies: [
                "AltBenchCore", "AltBenchHTTP",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "altbench",
            dependencies: [
                "AltBenchApp",
                "AltBenchCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "AltBenchTesting",
            dependencies: [
                "AltBenchCore",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "altbench-bench",
            dependencies: [
                "AltBenchCore", "AltBenchHTTP", "AltBenchStore", "AltBenchReport", "AltBenchOpenAI", "AltBenchTesting", "AltBenchProxy",
                "AltBenchApp", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "altbench-test-server",
            dependencies: ["AltBenchTesting", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AltBenchCoreTests",
            dependencies: ["AltBenchCore", "AltBenchTesting"],
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AltBenchOpenAITests",
            dependencies: [
                "AltBenchOpenAI", "AltBenchHTTP", "AltBenchCore", "AltBenchTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AltBenchProxyTests",
            dependencies: [
                "AltBenchProxy", "AltBenchHTTP", "AltBenchOpenAI", "AltBenchCore", "AltBenchTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AltBenchStoreTests",
            dependencies: ["AltBenchStore", "AltBenchCore"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AltBenchReportTests",
            dependencies: ["AltBenchReport", "AltBenchCore", .product(name: "Plot", package: "Plot")],
            exclude: ["Golden"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AltBenchTestingTests",
            dependencies: [
                "AltBenchTesting",
                "AltBenchCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AltBenchAppTests",
            dependencies: ["AltBenchApp", "AltBenchCore", "AltBenchOpenAI", "AltBenchProxy", "AltBenchReport", "AltBenchStore", "AltBenchTesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AltBenchEndToEndTests",
            dependencies: [
                "AltBenchTesting", "AltBenchCore", "altbench", "altbench-test-server", "altbench-bench",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
    ]
)
