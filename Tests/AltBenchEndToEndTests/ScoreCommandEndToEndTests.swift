import AltBenchTesting
import Foundation
import Testing

/// `altbench score` run as a user runs it: alt texts from a file, judged with the dataset's
/// references, printed as JSON or as the run's Markdown tables.
@Suite("altbench score")
struct ScoreCommandEndToEndTests {
    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func jsonScoresEveryAnswerWithTheDatasetsReferencesAndTheCorpusMetrics() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try workspace.write(
            "human.jsonl",
            """
            {"id": "chelsea", "text": "Close-up of a tabby cat with wide green-gold eyes looking off to one side.", "author": "ignored"}
            {"id": "coffee", "text": "I can see a cup of coffee on a saucer", "finish_reason": "length"}
            {"id": "rocket", "text": "A rocket on its launch pad. #space 🚀"}
            {"id": "unknown", "text": "A thing.", "references": ["A thing on a table."]}

            """)
        let output = try await AltbenchProcess.run(
            ["score", "human.jsonl", "--dataset", "datasets/sample", "--format", "json"], in: workspace.root)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("1 answer names no item of datasets/sample: 'unknown' (line 4)"), "\(output.stderr)")
        let root = try Self.json(output.stdout)
        let items = try #require(root["items"] as? [[String: Any]])
        #expect(items.map { $0["id"] as? String } == ["chelsea", "coffee", "rocket", "unknown"])
        func score(_ index: Int, _ id: String) -> [String: Any]? {
            (items[index]["scores"] as? [String: Any])?[id] as? [String: Any]
        }
        let ids = [
            "empty", "length", "brevity", "over_limit", "first_person", "perception_meta", "redundant_prefix",
            "meta_label", "refusal", "truncated", "terminal_punctuation", "filename", "markdown", "emoji",
            "social_tokens", "hedging", "readability", "bleu4", "rougeL", "ciderD", "quality",
        ]
        for id in ids { #expect(score(0, id) != nil, "chelsea lacks \(id)") }
        // Copying a reference scores high against it; the faulty answers are flagged.
        #expect((score(0, "bleu4")?["value"] as? Double ?? 0) > 0.9)
        #expect(score(0, "quality")?["passed"] as? Bool == true)
        #expect(score(1, "first_person")?["passed"] as? Bool == false)
        #expect(score(1, "truncated")?["detail"] as? String == "finish_reason length")
        #expect(score(1, "quality")?["value"] as? Int == 0)
        #expect(score(2, "emoji")?["value"] as? Int == 1)
        #expect(score(2, "social_tokens")?["value"] as? Int == 1)
        #expect(score(0, "length")?["passed"] is NSNull)
        // References given in the file count for an item the dataset lacks.
        #expect(score(3, "rougeL") != nil)

        let corpus = try #require(root["corpus"] as? [String: Any])
        #expect(corpus["n"] as? Int == 4)
        #expect(corpus["references_scored"] as? Int == 4)
        for key in ["bleu4", "rougeL", "ciderD", "quality", "hard_fails"] {
            #expect(corpus[key] is Double || corpus[key] is Int, "corpus lacks \(key)")
        }
        #expect((root["variants"] as? [[String: Any]])?.first?["variant"] as? String == "human")
    }

    @Test func markdownPrintsTheRunsTablesPerGroup() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try workspace.write(
            "answers.csv",
            """
            id,variant,text
            chelsea,human,"A tabby cat, wide-eyed, looking to one side."
            chelsea,tool,This image shows a cat
            coffee,human,An espresso in a red cup on a wooden table.
            coffee,tool,"I think it's coffee."

            """)
        let output = try await AltbenchProcess.run(["score", "answers.csv", "--dataset", "datasets/sample"], in: workspace.root)
        #expect(output.status == 0, "\(output.stderr)")
        let text = output.stdout
        #expect(text.hasPrefix("# altbench score answers.csv\n"))
        for heading in ["## Summary", "## Quality", "## Checks", "## Reference metrics", "## Per item", "### chelsea"] {
            #expect(text.contains("\n\(heading)\n"), "missing \(heading)")
        }
        let summary = text.components(separatedBy: "\n").filter { $0.hasPrefix("| human |") || $0.hasPrefix("| tool |") }
        #expect(summary.count >= 8, "\(text)")
        #expect(text.contains("| tool | This image shows a cat |"))
        #expect(!text.contains("p50 latency"))
    }

    @Test func badInputNamesTheLineAndExitsOne() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try workspace.write("bad.jsonl", "{\"id\": \"a\", \"text\": \"A.\"}\n{\"text\": \"no id\"}\n")
        let output = try await AltbenchProcess.run(["score", "bad.jsonl"], in: workspace.root)
        #expect(output.status == 1)
        #expect(output.stderr.contains("error: bad.jsonl:2: needs an `id`"), "\(output.stderr)")
        #expect(output.stdout.isEmpty)
    }
}
