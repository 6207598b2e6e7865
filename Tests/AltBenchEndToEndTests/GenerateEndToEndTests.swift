import AltBenchTesting
import Foundation
import Testing

/// `altbench datasets generate` with the built binaries: ShipThatApp's whole flow through the
/// built proxy, the shipped example offline, and the review gate.
@Suite("datasets generate, built")
struct GenerateEndToEndTests {
    @Test func shipThatAppsFlowThroughTheSignedDalleRoute() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let servers = try await ProxyEndToEndTests.startServers(in: workspace.root)
        // DALL·E answers base64 here, so the proxy keeps the image and answers its own URL.
        try workspace.write(
            "spec.yml",
            """
            model: dall-e-3
            items:
              - id: bicycle
                prompt: A red bicycle leaning on a blue wall
                response_format: b64_json
                references: ["A red bicycle leaning on a blue wall."]
            """)
        let environment = AltbenchProcess.cleanEnvironment(["ALTBENCH_PROXY_APP_KEY": ProxyEndToEndTests.appKey])
        let arguments = ["datasets", "generate", "spec.yml", "--out", "datasets/gen", "--proxy", servers.proxyURL, "--proxy-route", "dalle"]
        let generated = try await AltbenchProcess.run(arguments, in: workspace.root, environment: environment)
        let again = try await AltbenchProcess.run(arguments, in: workspace.root, environment: environment)
        let (_, proxyOutput) = try await servers.stop()

        #expect(generated.status == 0, "\(generated.stderr)")
        let log = proxyOutput.stderr.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let dalle = log.filter { $0["path"] as? String == "/dalle" }
        #expect(dalle.count == 1 && dalle.first?["status"] as? Int == 200, "\(proxyOutput.stderr)")
        let download = log.filter { ($0["path"] as? String)?.hasPrefix("/generated/") == true }
        #expect(download.count == 1 && download.first?["status"] as? Int == 200, "the image is fetched from the proxy's own URL")

        let image = try Data(contentsOf: workspace.url("datasets/gen/images/bicycle.png"))
        #expect(image.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let line = try #require(try workspace.read("datasets/gen/manifest.jsonl").split(separator: "\n").first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let provenance = try #require(object["generated"] as? [String: Any])
        #expect(provenance["endpoint"] as? String == "\(servers.proxyURL)/dalle")
        #expect(provenance["model"] as? String == "dall-e-3" && provenance["style"] as? String == "natural")
        #expect(object["reviewed"] as? Bool == false)

        // The second run sends nothing: no token request, no /dalle.
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("bicycle: from the store"), "\(again.stderr)")
        let text = generated.stdout + generated.stderr + again.stderr + proxyOutput.stderr
        #expect(!text.contains(ProxyEndToEndTests.appKey) && !text.contains(ProxyEndToEndTests.upstreamKey))
    }

    @Test func gptImageRequestsThroughTheProxysImagesRoute() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let servers = try await ProxyEndToEndTests.startServers(in: workspace.root)
        try workspace.write("spec.yml", "items:\n  - id: sign\n    prompt: A sign reading OPEN\n    n: 2\n")
        let generated = try await AltbenchProcess.run(
            ["datasets", "generate", "spec.yml", "--out", "datasets/gen", "--proxy", servers.proxyURL], in: workspace.root,
            environment: AltbenchProcess.cleanEnvironment(["ALTBENCH_PROXY_APP_KEY": ProxyEndToEndTests.appKey]))
        let (_, proxyOutput) = try await servers.stop()
        #expect(generated.status == 0, "\(generated.stderr)")
        #expect(proxyOutput.stderr.contains(#""path":"/v1/images/generations","status":200"#), "\(proxyOutput.stderr)")
        for id in ["sign-1", "sign-2"] {
            #expect(FileManager.default.fileExists(atPath: workspace.url("datasets/gen/images/\(id).png").path))
        }
        #expect(try workspace.read("datasets/gen/manifest.jsonl").contains("\(servers.proxyURL)/v1/images/generations"))
    }

    @Test func theShippedSpecMakesADatasetOfflineThatRunEvaluatesAndReviewGates() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let spec = Workspace.repository.appendingPathComponent("examples/generate/signs.yml").path
        let generated = try await AltbenchProcess.run(
            ["datasets", "generate", spec, "--out", "datasets/signs", "--provider", "mock"], in: workspace.root)
        #expect(generated.status == 0, "\(generated.stderr)")
        #expect(generated.stderr.contains("OFFLINE MOCK"))
        #expect(generated.stderr.contains("12 images in datasets/signs (12 generated, 0 from the store)"), "\(generated.stderr)")

        let run = try await AltbenchProcess.run(["run", "--dataset", "datasets/signs", "--max-tokens", "50"], in: workspace.root)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("12 of 12 items were generated and not reviewed yet"), "\(run.stderr)")
        #expect(run.stderr.contains("warning: 12 items are mock placeholders"), "\(run.stderr)")
        #expect(run.stderr.contains("× 12 images"), "\(run.stderr)")

        // The review gate: --strict fails until every image is marked reviewed.
        let strict = try await AltbenchProcess.run(["datasets", "validate", "datasets/signs", "--strict"], in: workspace.root)
        #expect(strict.status == 1)
        #expect(strict.stdout.contains("12 problems"), "\(strict.stdout)")
        let manifest = try workspace.read("datasets/signs/manifest.jsonl")
        try workspace.write("datasets/signs/manifest.jsonl", manifest.replacingOccurrences(of: #""reviewed":false"#, with: #""reviewed":true"#))
        // Reviewed or not, mock placeholders are never evaluation data: --strict still fails.
        let reviewed = try await AltbenchProcess.run(["datasets", "validate", "datasets/signs", "--strict"], in: workspace.root)
        #expect(reviewed.status == 1, "\(reviewed.stdout)")
        #expect(reviewed.stdout.contains("mock placeholder"), "\(reviewed.stdout)")

        // Generating again keeps the reviews.
        let again = try await AltbenchProcess.run(
            ["datasets", "generate", spec, "--out", "datasets/signs", "--provider", "mock"], in: workspace.root)
        #expect(again.status == 0)
        #expect(try workspace.read("datasets/signs/manifest.jsonl") == manifest.replacingOccurrences(of: #""reviewed":false"#, with: #""reviewed":true"#))
    }

    @Test func aBadSpecStopsBeforeAnythingNamingTheLine() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try workspace.write("spec.yml", "items:\n  - id: a\n    prompt: x\n    colour: red\n")
        let result = try await AltbenchProcess.run(["datasets", "generate", "spec.yml", "--out", "out"], in: workspace.root)
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: spec.yml:4: unknown key `colour` in an item."), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: workspace.url("out").path))
        let usage = try await AltbenchProcess.run(["datasets", "generate", "spec.yml", "--out", "out", "--proxy-route", "x"], in: workspace.root)
        #expect(usage.status == 64)
    }
}
