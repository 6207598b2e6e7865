import Testing

@testable import AltBenchCore

@Suite("context_echo")
struct ContextEchoScorerTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var context: String
        var content: String?
        var flagged: Bool
        var detail: String?
        var threshold = 0.8

        init(_ context: String, _ content: String?, flagged: Bool, _ detail: String? = nil, threshold: Double = 0.8) {
            self.context = context
            self.content = content
            self.flagged = flagged
            self.detail = detail
            self.threshold = threshold
        }

        var testDescription: String {
            "\(content?.debugDescription ?? "nil") for post \(context.debugDescription), threshold \(threshold)"
        }
    }

    static let echoes: [Row] = [
        Row("Max's first trip to the beach!", "Max's first trip to the beach!", flagged: true,
            "copies 100% of the post text"),
        Row("Max\u{2019}s first trip to the beach! \u{1F436} #GoldenRetriever", "Max's first trip to the beach.",
            flagged: true, "copies 100% of the post text"),
        Row("Max's first trip to the beach! #GoldenRetriever", "Max's first trip to the beach, golden retriever.",
            flagged: true, "copies 100% of the post text"),
        Row("Max's first trip to the beach! #GoldenRetriever", "Max's first trip to the beach #goldenretriever",
            flagged: true, "copies 86% of the post text"),
        // A slice of the post.
        Row("Sunset over the harbour tonight, the boats were glowing", "The boats were glowing.", flagged: true,
            "copies 100% of the post text"),
        // A word changed.
        Row("Our new kitchen is finally finished after six months of work",
            "The new kitchen is finally finished after six months of work.", flagged: true,
            "copies 91% of the post text"),
        // Equal, however short.
        Row("Hello", "Hello!", flagged: true, "copies 100% of the post text"),
        Row("#SunsetLovers #Beach", "Sunset lovers, beach.", flagged: true, "copies 100% of the post text"),
        Row("GO TEAM GO", "Go team go.", flagged: true, "copies 100% of the post text"),
        Row("Day 100 of #100DaysOfCode with the #NASAGoddard team",
            "Day 100 of 100 days of code with the NASA Goddard team.", flagged: true, "copies 100% of the post text"),
        Row("Premier jour de printemps au parc, les cerisiers sont en fleurs \u{1F338}",
            "Premier jour de printemps au parc, les cerisiers sont en fleurs.", flagged: true,
            "copies 100% of the post text"),
        Row("Unser Hund Bello liebt den Schnee!", "Unser Hund Bello liebt den Schnee.", flagged: true),
        Row("Mi gato durmiendo en el sof\u{00E1} \u{1F634}", "Mi gato durmiendo en el sof\u{00E1}.", flagged: true),
        Row("A walk in the park with Max", "Max on a walk in a park with trees.", flagged: true,
            "copies 56% of the post text", threshold: 0.5),
        // Exactly at the threshold: 7 of 10 words at 0.7.
        Row("one two three four five six seven", "one two three four five six seven eight nine ten", flagged: true,
            "copies 70% of the post text", threshold: 0.7),
    ]

    static let descriptions: [Row] = [
        Row("Max's first trip to the beach! #GoldenRetriever", "Max, a golden retriever puppy, running on a beach.",
            flagged: false),
        Row("Max's first trip to the beach!", "", flagged: false),
        Row("Max's first trip to the beach!", nil, flagged: false),
        // Short answers echo only when they are the whole post.
        Row("Max at the beach", "The beach.", flagged: false),
        Row("Max at the beach", "A red bicycle leaning against a wall.", flagged: false),
        Row("Cat sleeping on a red sofa", "A red sofa with a cat sleeping on it.", flagged: false),
        Row("Max at the beach",
            "Max at the beach: a golden retriever puppy chasing a red ball through shallow waves at sunset.",
            flagged: false),
        Row("Our new kitchen is finally finished after six months of work",
            "The new kitchen is finally finished after six months of work.", flagged: false, threshold: 1),
        Row("GO TEAM GO", "Fans holding a GO TEAM GO banner in a stadium.", flagged: false),
        Row("Premier jour de printemps au parc", "Des cerisiers en fleurs dans un parc au printemps.", flagged: false),
        Row("Unser Hund Bello liebt den Schnee!", "Ein brauner Hund springt durch tiefen Schnee.", flagged: false),
        Row("Mi gato durmiendo en el sof\u{00E1}", "Un gato gris dormido sobre un sof\u{00E1} azul.", flagged: false),
        Row("A walk in the park with Max", "Max on a walk in a park with trees.", flagged: false),
        Row("one two three four five six", "one two three four five six seven eight nine ten", flagged: false,
            threshold: 0.7),
    ]

    @Test(arguments: echoes + descriptions)
    func flagsAnswersThatCopyThePostText(_ row: Row) {
        let input = ScoringInput(
            content: row.content, settings: ScoringSettings(contextEchoThreshold: row.threshold),
            item: ScoringItem(context: row.context))
        let scores = ContextEchoScorer().score(input)
        #expect(scores.count == 1)
        guard let score = scores.first else { return }
        #expect(score.name == ScoreName.contextEcho)
        #expect(score.isFlagged == row.flagged, "detail: \(score.detail ?? "nil")")
        #expect(score.value == (row.flagged ? 1 : 0))
        if row.flagged {
            if let detail = row.detail {
                #expect(score.detail == detail)
            } else {
                #expect(score.detail?.hasPrefix("copies ") == true)
            }
        } else {
            #expect(score.detail == nil)
        }
    }

    @Test(arguments: [nil, "", " \n ", "\u{1F389}\u{1F389}"] as [String?])
    func writesNoScoreWithoutPostText(_ context: String?) {
        let input = ScoringInput(content: "A dog.", item: ScoringItem(context: context))
        #expect(ContextEchoScorer().score(input).isEmpty)
    }

    @Test(arguments: [
        ([1, 2, 3], [1, 2, 3], 3), ([1, 2, 3], [3, 2, 1], 1), ([1, 3], [1, 2, 3], 2), ([], [1], 0),
        ([1, 2, 1, 2], [2, 1, 2, 1], 3),
    ] as [([Int], [Int], Int)])
    func measuresTheLongestCommonSubsequence(_ a: [Int], _ b: [Int], _ length: Int) {
        #expect(ContextEchoScorer.longestCommonSubsequence(a, b) == length)
    }
}
