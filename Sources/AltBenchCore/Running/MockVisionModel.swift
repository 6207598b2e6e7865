import Foundation

/// The offline model: answers with the item's first reference description, cut to roughly
/// `max_tokens` tokens (finish_reason "length" when cut), or a fixed sentence naming the file
/// when the dataset has no reference.
///
/// It makes no network request, so `altbench run` works on a fresh machine without a key. Its
/// numbers measure the references and the scorers, never a model.
package struct MockVisionModel: VisionModel {
    package static let endpoint = "mock"

    /// Reference texts by image identity (hash or URL).
    private let references: [String: String]
    private let names: [String: String]
    /// Local images' sizes, for the usage the mock reports.
    private let sizes: [String: (width: Int, height: Int)]

    package init(dataset: Dataset) {
        var references: [String: String] = [:]
        var names: [String: String] = [:]
        var sizes: [String: (width: Int, height: Int)] = [:]
        for item in dataset.items {
            guard let identity = item.imageIdentity else { continue }
            if let info = item.imageInfo { sizes[identity] = (info.width, info.height) }
            if let first = item.references.first, references[identity] == nil { references[identity] = first }
            if names[identity] == nil {
                switch item.image {
                case .file(let path, _): names[identity] = URL(fileURLWithPath: path).lastPathComponent
                case .remote(let url): names[identity] = url.lastPathComponent
                }
            }
        }
        self.references = references
        self.names = names
        self.sizes = sizes
    }

    package var endpoint: String { Self.endpoint }

    package func complete(_ request: ModelRequest) async throws -> ModelAnswer {
        let full = references[request.imageIdentity]
            ?? "A placeholder description of \(names[request.imageIdentity] ?? "the image") from the offline mock model."
        let pieces = ApproximateTokenizer.pieces(full)
        let limit = request.maxTokens ?? Int.max
        let cut = pieces.count > limit
        let kept = cut ? Array(pieces.prefix(limit)) : pieces
        let content = kept.joined()
        // The mock reports the usage altbench estimates for the request (text approximately,
        // the image by the model's formula), so a mock run's cost section is the plan's.
        let size = sizes[request.imageIdentity]
        let estimate = RequestEstimate.make(request: request, imageWidth: size?.width, imageHeight: size?.height)
        let promptTokens = estimate.inputTokens
        return ModelAnswer(
            content: content, finishReason: cut ? "length" : "stop", responseModel: "mock-\(request.model)",
            promptTokens: promptTokens, completionTokens: kept.count, totalTokens: promptTokens + kept.count,
            latencyMs: 0, tokenField: request.maxTokens == nil ? nil : request.tokenField.rawValue, cachedTokens: 0,
            imageTokens: estimate.imageTokens)
    }
}

/// A rough stand-in for a BPE tokenizer: a word (with its leading space) is one token, a long
/// word two, each punctuation mark one. Close enough to English GPT counts (about 1.3 tokens
/// a word) for the mock to cut where a real model would.
package enum ApproximateTokenizer {
    /// The text split into token-sized pieces whose concatenation is the text.
    package static func pieces(_ text: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        func flush() {
            guard !current.isEmpty else { return }
            let letters = current.trimmingCharacters(in: .whitespaces)
            if letters.count > 10 {
                // Split long words so they cost two tokens, as BPE would.
                let cutIndex = current.index(current.endIndex, offsetBy: -(letters.count / 2))
                pieces.append(String(current[..<cutIndex]))
                pieces.append(String(current[cutIndex...]))
            } else {
                pieces.append(current)
            }
            current = ""
        }
        for character in text {
            if character.isWhitespace {
                if !current.trimmingCharacters(in: .whitespaces).isEmpty { flush() }
                current.append(character)
            } else if character.isLetter || character.isNumber || character == "'" || character == "’" {
                current.append(character)
            } else {
                flush()
                pieces.append(String(character))
            }
        }
        flush()
        return pieces
    }

    package static func count(_ text: String) -> Int { pieces(text).count }
}
