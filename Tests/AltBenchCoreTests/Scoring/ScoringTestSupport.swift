import Testing

@testable import AltBenchCore

/// One row of a pass/fail scorer table: an answer, and whether the scorer must flag it.
struct ScoringFlagCase: Sendable, CustomTestStringConvertible {
    var content: String?
    var flagged: Bool
    /// The evidence expected when flagged; `nil` leaves it unchecked.
    var detail: String?
    var refusal: String?
    var finishReason: String?

    init(
        _ content: String?, flagged: Bool, detail: String? = nil, refusal: String? = nil,
        finishReason: String? = nil
    ) {
        self.content = content
        self.flagged = flagged
        self.detail = detail
        self.refusal = refusal
        self.finishReason = finishReason
    }

    static func flag(
        _ content: String?, _ detail: String? = nil, refusal: String? = nil, finishReason: String? = nil
    ) -> Self {
        Self(content, flagged: true, detail: detail, refusal: refusal, finishReason: finishReason)
    }

    static func pass(_ content: String?, refusal: String? = nil, finishReason: String? = nil) -> Self {
        Self(content, flagged: false, refusal: refusal, finishReason: finishReason)
    }

    var input: ScoringInput {
        ScoringInput(content: content, refusal: refusal, finishReason: finishReason)
    }

    var testDescription: String {
        var parts = [content.map { "\($0.debugDescription)" } ?? "nil content"]
        if let refusal { parts.append("refusal \(refusal.debugDescription)") }
        if let finishReason { parts.append("finish \(finishReason)") }
        parts.append(flagged ? "flagged" : "passes")
        return parts.joined(separator: ", ")
    }
}

/// Runs a one-score pass/fail scorer on `row` and checks the flag, its evidence and the
/// value/passed convention of ``Score/flag(_:_:detail:)``.
func expectFlag(
    _ scorer: some Scorer, name: String, _ row: ScoringFlagCase,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let scores = scorer.score(row.input)
    #expect(scores.count == 1, sourceLocation: sourceLocation)
    guard let score = scores.first else { return }
    #expect(score.name == name, sourceLocation: sourceLocation)
    #expect(score.isFlagged == row.flagged, "detail: \(score.detail ?? "nil")", sourceLocation: sourceLocation)
    #expect(score.value == (row.flagged ? 1 : 0), sourceLocation: sourceLocation)
    if row.flagged {
        if let detail = row.detail {
            #expect(score.detail == detail, sourceLocation: sourceLocation)
        } else {
            #expect(score.detail?.isEmpty == false, sourceLocation: sourceLocation)
        }
    } else {
        #expect(score.detail == nil, sourceLocation: sourceLocation)
    }
}
