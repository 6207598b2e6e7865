/// Flags a cut-off answer: `finish_reason` "length", or text ending mid-phrase (altbench research).
///
/// Ice Cubes asks for 50 tokens, so cut-offs are common. Without the finish reason, text is
/// cut off when it stops on a function word (a, the, of, with, ...), on , ; : ( or a dash, or
/// with a quote or bracket left open.
///
/// A missing final period alone is not truncation ("A cat sleeping" is complete); whether
/// the answer ends with one is a style question for another scorer. An answer that ends with
/// . ! ? … or a closing quote or bracket is judged only on open quotes and brackets.
///
/// Known limit: a fragment that ends on a particle and no period ("Lights on") is flagged,
/// since "on" and "in" end most cut-off descriptions ("A dog running on").
public struct TruncationScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        if let reason = input.finishReason?.lowercased(), Self.cutOffReasons.contains(reason) {
            return [.flag(ScoreName.truncated, true, detail: "finish_reason \(reason)")]
        }
        var text = input.text
        let (quotes, brackets) = text.withUTF8(Self.mayOpen)
        let evidence = Self.evidence(
            chars: input.characters, quotes: quotes, brackets: brackets, quotedSpans: quotes ? input.quotedSpans : nil)
        return [.flag(ScoreName.truncated, evidence != nil, detail: evidence)]
    }

    /// Finish reasons that mean the token limit stopped the model: OpenAI and Ollama say
    /// "length", gateways that pass Anthropic's reason through say "max_tokens".
    static let cutOffReasons: Set<String> = ["length", "max_tokens"]

    /// Words a complete description does not end on: articles, conjunctions, prepositions
    /// that need an object, possessives and linking verbs. Words that often end a phrase
    /// ("that", "this", "over", "behind", "her", "be") are left out.
    static let functionWords: Set<String> = [
        "a", "an", "the", "and", "or", "but", "nor", "of", "to", "with", "in", "on", "at", "by",
        "for", "from", "into", "onto", "upon", "against", "between", "among", "amongst",
        "toward", "towards", "via", "like", "unlike", "including", "featuring", "despite",
        "during", "within", "without", "near", "as", "than", "if", "because", "although",
        "whereas", "whether", "unless", "while", "which", "who", "whom", "whose", "its",
        "their", "his", "my", "our", "your", "every", "very", "such", "is", "are", "was", "were",
    ]

    /// Marks after which a sentence must go on.
    static let danglingMarks: Set<Character> = [
        ",", ";", ":", "(", "[", "{", "-", "\u{2010}", "\u{2013}", "\u{2014}", "&", "/",
    ]

    /// Why `text` looks cut off, or `nil` when it looks complete (or is empty).
    static func evidence(in text: String) -> String? {
        evidence(chars: Array(text))
    }

    /// Whether UTF-8 `bytes` hold a mark that may open a quotation other than a straight
    /// single quote (" “ „ ‘ « ‹ 「 『), and one that opens a bracket. When they hold neither,
    /// the scans for unclosed quotations and brackets can be skipped: they would find none.
    static func mayOpen(_ bytes: UnsafeBufferPointer<UInt8>) -> (quotes: Bool, brackets: Bool) {
        var quotes = false
        var brackets = false
        let n = bytes.count
        for i in 0..<n {
            switch bytes[i] {
            case 0x22: quotes = true
            case 0x28, 0x5B, 0x7B: brackets = true
            case 0xC2: if i + 1 < n, bytes[i + 1] == 0xAB { quotes = true }
            case 0xE2:
                if i + 2 < n, bytes[i + 1] == 0x80,
                    [0x98, 0x9C, 0x9E, 0xB9].contains(bytes[i + 2])
                {
                    quotes = true
                }
            case 0xE3: if i + 2 < n, bytes[i + 1] == 0x80, bytes[i + 2] == 0x8C || bytes[i + 2] == 0x8E { quotes = true }
            default: break
            }
        }
        return (quotes, brackets)
    }

    /// ``evidence(in:)`` over text already split into `Character`s; `quotes` and `brackets`
    /// false skip the scans ``mayOpen(_:)`` ruled out; `quotedSpans` are the spans of `chars`
    /// when already found.
    static func evidence(
        chars: [Character], quotes: Bool = true, brackets: Bool = true, quotedSpans: [TextAnalysis.QuotedSpan]? = nil
    ) -> String? {
        guard let last = chars.last(where: { !TextAnalysis.isSpace($0) }) else { return nil }

        // Straight single quotes are left out: they are also apostrophes at word starts
        // ('90s, 'em, rock 'n roll), so an "open" one proves nothing.
        if quotes, let open = (quotedSpans ?? TextAnalysis.quotedSpans(in: chars)).first(where: { !$0.isClosed && $0.opener != "'" }) {
            return "unclosed \(open.opener)"
        }
        if brackets, let bracket = unclosedBracket(chars) {
            return "unclosed \(bracket)"
        }
        if danglingMarks.contains(last) {
            return "ends on \(last)"
        }
        if TextAnalysis.isSentenceTerminator(last) || TextAnalysis.isClosingMark(last) {
            return nil
        }
        guard TextAnalysis.isWordCharacter(last), let word = TextAnalysis.lastWord(in: chars),
            functionWords.contains(word.normalized)
        else { return nil }
        return "ends on \(word.text)"
    }

    /// The innermost bracket still open at the end, ignoring stray closers ("1) a cat").
    static func unclosedBracket(_ chars: [Character]) -> Character? {
        var open: [Character] = []
        for c in chars {
            // Brackets are ASCII: a byte comparison, not a Character one, and the first UTF-8
            // byte rules out most characters at once.
            switch c.utf8.first {
            case 0x28, 0x29, 0x5B, 0x5D, 0x7B, 0x7D: break
            default: continue
            }
            guard let byte = c.asciiByte else { continue }
            switch byte {
            case 0x28, 0x5B, 0x7B:
                open.append(c)
            case 0x29, 0x5D, 0x7D:
                if !open.isEmpty { open.removeLast() }
            default:
                break
            }
        }
        return open.last
    }
}
