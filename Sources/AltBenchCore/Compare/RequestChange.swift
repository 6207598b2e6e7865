import Foundation

/// What changed in what a (variant, max_tokens) pair asked between the two sides of a
/// comparison: the variant's prompt text, and the settings of its request (model, detail,
/// max_tokens, …), from the hashes and settings each side recorded
/// (``RunSnapshot/Row/promptSHA256``, ``RunSnapshot/Row/requestSHA256``,
/// ``RunSnapshot/Row/requestSettings``).
///
/// It is information beside the pair's verdict, never part of it: a check holds or fails on
/// the answers alone, whatever changed in the request.
///
/// A pair on both sides is compared with itself. When a variant has no pair on both sides
/// because its token limits changed (50 in the baseline, 80 in the run), each of its pairs is
/// compared with the same variant's pair on the other side (the first in that side's order):
/// its prompt as usual, its settings with `max_tokens` always among those that changed. A pair
/// on one side only of a variant that has other pairs on both sides (a limit added or dropped)
/// has no change of its own: its matched pairs show the variant's; neither has a variant on one
/// side only.
package struct RequestChange: Sendable, Hashable, Encodable {
    package enum State: String, Sendable, Hashable, Codable {
        case same, changed
        /// A side was saved by an altbench that did not record it: neither same nor changed.
        case unknown
    }

    /// Whether the variant's prompt text changed.
    package var prompt: State
    /// Whether the request's settings changed.
    package var settings: State
    /// The settings that changed, as reports name them, in ``settingOrder``: `model`,
    /// `max_tokens`, `token_field`, `detail`, `temperature`, `system message`,
    /// `response_format`; `request` when the two requests differ in nothing altbench names.
    /// Empty unless ``settings`` is `changed`.
    package var changedSettings: [String]

    enum CodingKeys: String, CodingKey {
        case prompt, settings
        case changedSettings = "changed_settings"
    }

    package init(prompt: State, settings: State, changedSettings: [String] = []) {
        self.prompt = prompt
        self.settings = settings
        self.changedSettings = changedSettings
    }

    /// The order reports name changed settings in, by their key in
    /// ``RunSnapshot/Row/requestSettings`` and the name shown; other keys follow, sorted.
    package static let settingOrder: [(key: String, name: String)] = [
        ("model", "model"), ("max_tokens", "max_tokens"), ("token_field", "token_field"), ("detail", "detail"),
        ("temperature", "temperature"), ("system_sha256", "system message"),
        ("response_format_sha256", "response_format"),
    ]

    /// The change of pair (`variant`, `maxTokens`) from `before` to `after`; nil when the
    /// variant is on one side only, or the pair is while other pairs of the variant are on both.
    package static func of(variant: String, maxTokens: Int?, before: RunSnapshot, after: RunSnapshot) -> RequestChange? {
        let matched = before.rows.contains { $0.variant == variant && after.row(variant: variant, maxTokens: $0.maxTokens) != nil }
        switch (before.row(variant: variant, maxTokens: maxTokens), after.row(variant: variant, maxTokens: maxTokens)) {
        case (.some, nil) where matched, (nil, .some) where matched:
            return nil
        case (let a?, let b?):
            return RequestChange(before: a, after: b, limitDiffers: false)
        case (let a?, nil):
            return after.rows.first { $0.variant == variant }.map { RequestChange(before: a, after: $0, limitDiffers: true) }
        case (nil, let b?):
            return before.rows.first { $0.variant == variant }.map { RequestChange(before: $0, after: b, limitDiffers: true) }
        case (nil, nil):
            return nil
        }
    }

    /// `before` and `after` compared; `limitDiffers`: they are the same variant at two token limits.
    init(before: RunSnapshot.Row, after: RunSnapshot.Row, limitDiffers: Bool) {
        prompt =
            switch (before.promptSHA256, after.promptSHA256) {
            case (let a?, let b?): a == b ? .same : .changed
            default: .unknown
            }
        guard var a = before.requestSettings, var b = after.requestSettings else {
            settings = .unknown
            changedSettings = []
            return
        }
        if limitDiffers {
            // The limits differ by construction; the field carrying them counts only when both have one.
            a["max_tokens"] = nil
            b["max_tokens"] = nil
            if a["token_field"] == nil || b["token_field"] == nil {
                a["token_field"] = nil
                b["token_field"] = nil
            }
        }
        var keys = Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }
        if limitDiffers { keys.insert("max_tokens") }
        var names = Self.settingOrder.filter { keys.contains($0.key) }.map(\.name)
        names += keys.subtracting(Self.settingOrder.map(\.key)).sorted()
        if names.isEmpty, !limitDiffers, prompt == .same, let x = before.requestSHA256, let y = after.requestSHA256, x != y {
            // The same prompt and named settings, yet another request: something altbench does
            // not name (a field a newer altbench sends) changed.
            names = ["request"]
        }
        settings = names.isEmpty ? .same : .changed
        changedSettings = names
    }

    /// "prompt changed", "settings changed (model, detail)": what reports print beside the
    /// pair, in that order; empty when nothing is known to have changed.
    package var marks: [String] {
        var marks: [String] = []
        if prompt == .changed { marks.append("prompt changed") }
        if settings == .changed { marks.append("settings changed (\(changedSettings.joined(separator: ", ")))") }
        return marks
    }

    /// ``marks`` in one phrase ("prompt changed; settings changed (model)"), nil when empty.
    package var text: String? {
        marks.isEmpty ? nil : marks.joined(separator: "; ")
    }

    /// Whether a side did not record what it asked.
    package var isUnknown: Bool { prompt == .unknown || settings == .unknown }
}
