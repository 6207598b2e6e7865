import Testing

@testable import AltBenchCore

@Suite("markdown")
struct MarkdownScorerTests {
    static let flagged: [ScoringFlagCase] = [
        .flag("A **red** bus on a bridge.", "**red**"),
        .flag("**Alt text:** A cat.", "**Alt text:**"),
        .flag("A __red__ bus.", "__red__"),
        .flag("A *very* small cat.", "*very*"),
        .flag("A _very_ small cat.", "_very_"),
        .flag("A sign reading \u{201C}*Open*\u{201D}.", "*Open*"),
        .flag("A ~~red~~ blue bus.", "~~red~~"),
        .flag("# A cat\nAsleep on a sofa.", "# A cat"),
        .flag("A cat.\n\n## Details\nAsleep.", "## Details"),
        .flag("- A cat\n- A dog", "- A cat"),
        .flag("A cat and a dog:\n* the cat sleeps\n* the dog barks", "* the cat sleeps"),
        .flag("- A cat asleep on a sofa.", "- A cat asleep on a sofa."),
        .flag("1. A cat\n2. A dog", "1. A cat"),
        .flag("Two pets:\n1) a cat\n2) a dog", "1) a cat"),
        .flag("A terminal showing `ls -la` output.", "`ls -la`"),
        .flag("```\nA cat\n```", "```"),
        .flag("A [cat](https://example.com) on a sofa.", "[cat](https://example.com)"),
        .flag("![A cat](cat.png)", "![A cat](cat.png)"),
        .flag("> A cat asleep on a sofa.", "> A cat asleep on a sofa."),
        .flag("A <b>red</b> bus.", "<b>"),
        .flag("A cat.<br>A dog.", "<br>"),
        .flag("A cat.<br/>A dog.", "<br/>"),
        .flag("<img src=\"cat.png\" alt=\"A cat\">", "<img src=\"cat.png\" alt=\"A cat\">"),
        .flag("A cat on a sofa.</p>", "</p>"),
        .flag("Tom &amp; Jerry on a mug.", "&amp;"),
        .flag("Rock &#39;n&#39; roll poster.", "&#39;"),
        .flag("A cat.\n---\nA dog.", "---"),
        .flag("| a | b |\n|---|---|\n| 1 | 2 |", "|---|---|"),
        .flag("Ein **rotes** Auto.", "**rotes**"),
    ]

    static let notFlagged: [ScoringFlagCase] = [
        .pass(nil),
        .pass(""),
        .pass("A cat asleep on a sofa."),
        .pass("A C# tutorial on a laptop screen."),
        .pass("#1 fan T-shirt."),
        .pass("A beach at sunset.\n#sunset #beach"),
        .pass("A blackboard: 5 * 3 = 15."),
        .pass("A formula a*b*c on a whiteboard."),
        .pass("Code with snake_case_name on a screen."),
        .pass("A card saying I <3 you."),
        .pass("A whiteboard: x < y > z."),
        .pass("-5°C on a thermometer."),
        .pass("Mr. T in a gold chain."),
        .pass("Fans of 1. FC Köln in a stadium."),
        .pass("1. FC Köln fans in a stadium."),
        .pass("2. place ribbon on a cake."),
        .pass("1990s living room with a TV."),
        .pass("A smiley :-) drawn in sand."),
        .pass("Emoticons *_* and ^_^ on a sticker."),
        .pass("A sale sign: Open* (*Sundays closed)"),
        .pass("Price 5\u{20AC}* on a tag."),
        .pass("A sign: *** SALE ***"),
        .pass("A tweet reading \"Just landed in #Paris @jane\"."),
        .pass("A sign reading <Hello>."),
        .pass("AT&T store front."),
        .pass("A cat.\nA dog on a mat."),
        .pass("Un chat – assis sur un canapé."),
        .pass("猫がソファで寝ている。"),
        .pass("A ~2 km trail map."),
        .pass("Item [1] and [2] on a list."),
    ]

    @Test(arguments: flagged + notFlagged)
    func flagsMarkupAScreenReaderWouldReadOut(_ row: ScoringFlagCase) {
        expectFlag(MarkdownScorer(), name: ScoreName.markdown, row)
    }
}
