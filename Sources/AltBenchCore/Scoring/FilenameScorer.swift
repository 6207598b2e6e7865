/// Flags a file name in the answer (GitHub accessibility scanner; double-great/alt-text).
///
/// A file name says nothing about the picture and is read out character by character. Two
/// forms are flagged:
/// - `name.ext` with an image extension (``extensions``: .png .jpg .jpeg .gif .svg .webp .bmp
///   .ico .heic .heif .tif .tiff .avif, any case): the GitHub accessibility scanner's list
///   plus the formats phones and browsers write today. The name is letters of any script,
///   digits, dashes, underscores and inner dots, so "cat.png", "IMG_1234.JPG",
///   "my-photo.final.jpeg" and the "cat.jpg" of "https://example.com/cat.jpg" count. A bare
///   extension ("a .png file", ".svg") names a format, not a file, and passes; so do
///   "cat.pngs" (more word after it) and "cat.png.zip" (another extension).
/// - Camera and screenshot names (``isCameraName(_:)``, ``datedNames``): IMG_1234,
///   IMG-20230101-WA0001, MVIMG_…, VID_…, DSC_0001, DSCN1234, DSCF1234, DSC01234,
///   PXL_20230101_123456789, DJI_0001, GOPR1234, Screenshot_20230101,
///   "Screenshot 2023-01-01", "Screenshot from 2023-01-01", "Screen Shot 2023-01-01",
///   "WhatsApp Image 2023-01-01". The prefix alone is not a name ("IMG", "DSC", "imgur",
///   the camera "DSC-RX100").
///
/// "Node.js", "example.com", "version 1.2", "a PNG icon" and "JPEG artifacts" are not file
/// names. A file name inside closed quotation marks is a transcription (a screenshot of a
/// folder showing “IMG_1234.jpg”) and passes.
///
/// The text is read as Unicode scalars. The detail is the first file name, as written:
/// "IMG_1234.JPG".
public struct FilenameScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        let s = Array(input.text.unicodeScalars)
        for i in s.indices {
            guard let range = Self.fileName(in: s, at: i), !Self.isQuoted(range, in: input) else { continue }
            var name = ""
            name.unicodeScalars.append(contentsOf: s[range])
            return [.flag(ScoreName.filename, true, detail: name)]
        }
        return [.flag(ScoreName.filename, false)]
    }

    /// Image file extensions, lowercase.
    static let extensions: Set<String> = [
        "png", "jpg", "jpeg", "gif", "svg", "webp", "bmp", "ico", "heic", "heif", "tif", "tiff",
        "avif",
    ]

    /// Names a screenshot or messaging app gives a picture: a word, the words after it, then
    /// a date (" 2023-01-01"). "Screenshot" may also take its date straight away.
    static let datedNames: [(word: String, then: [String])] = [
        ("screenshot", [" from", ""]),
        ("screen", [" shot"]),
        ("whatsapp", [" image"]),
    ]

    /// Camera file names: a lowercase prefix, and what the rest of the name must be. A name
    /// is ASCII letters, digits, "_" and "-"; it is a camera name when one prefix fits.
    static let cameraNames: [(prefix: String, rest: @Sendable (Substring) -> Bool)] = [
        // IMG_1234, IMG-20230101-WA0001, IMG_E1234, IMG1234; the same after MVIMG.
        ("img", isNumbered), ("mvimg", isNumbered),
        ("vid_", startsWithDigits), ("pxl_", startsWithDigits), ("dji_", startsWithDigits),
        ("screenshot_", startsWithDigits), ("screenshot-", startsWithDigits),
        // DSC_0001, DSCN1234, DSCF1234, DSC01234.
        ("dsc_", { digits($0, atLeast: 3) }), ("dscn", { digits($0, atLeast: 3) }),
        ("dscf", { digits($0, atLeast: 3) }), ("dsc", { digits($0, atLeast: 3) }),
        ("gopr", { digits($0, atLeast: 4) }),
    ]

    /// Whether a lowercased name is a camera's file name (``cameraNames``).
    static func isCameraName(_ name: String) -> Bool {
        cameraNames.contains { name.hasPrefix($0.prefix) && $0.rest(name.dropFirst($0.prefix.count)) }
    }

    /// Three digits or more, and a "_" or "-" first or only digits.
    @Sendable static func isNumbered(_ rest: Substring) -> Bool {
        guard let first = rest.first, rest.count(where: \.isWholeNumber) >= 3 else { return false }
        return first == "_" || first == "-" || rest.allSatisfy(\.isWholeNumber)
    }

    /// A digit first, and three digits or more.
    @Sendable static func startsWithDigits(_ rest: Substring) -> Bool {
        rest.first?.isWholeNumber == true && rest.count(where: \.isWholeNumber) >= 3
    }

    /// Only digits, `count` or more.
    @Sendable static func digits(_ rest: Substring, atLeast count: Int) -> Bool {
        rest.count >= count && rest.allSatisfy(\.isWholeNumber)
    }

    /// The letters a camera or screenshot name may start with.
    static let initials = Set((cameraNames.map(\.prefix) + datedNames.map(\.word)).compactMap(\.unicodeScalars.first))

    // MARK: - Characters

    static func isASCIILetter(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) }
    static func isASCIIAlphanumeric(_ c: Unicode.Scalar) -> Bool { isASCIILetter(c) || ("0"..."9").contains(c) }
    static func lowercased(_ c: Unicode.Scalar) -> Unicode.Scalar {
        ("A"..."Z").contains(c) ? Unicode.Scalar(c.value + 32)! : c
    }
    /// An ASCII letter or digit, "_" or "-": what a camera name is made of.
    static func isNameCharacter(_ c: Unicode.Scalar) -> Bool { isASCIIAlphanumeric(c) || c == "_" || c == "-" }
    /// A letter or digit of any script ("é", "ж", "猫").
    static func isWord(_ c: Unicode.Scalar) -> Bool {
        c.isASCII ? isASCIIAlphanumeric(c) : c.properties.isAlphabetic || c.properties.numericType != nil
    }

    // MARK: - File names

    /// The file name whose dot is at `i`, or the camera name that starts there, or `nil`.
    static func fileName(in s: [Unicode.Scalar], at i: Int) -> Range<Int>? {
        if s[i] == ".", let end = extensionEnd(s, dot: i), let start = nameStart(s, dot: i) {
            return start..<end
        }
        if isASCIILetter(s[i]), i == 0 || !(isNameCharacter(s[i - 1]) || isWord(s[i - 1])),
            let end = cameraNameEnd(s, at: i)
        {
            return i..<end
        }
        return nil
    }

    /// Where an image extension after the dot at `dot` ends, when one does: three or four
    /// letters from ``extensions`` not followed by more of a word ("cat.pngs" is no file)
    /// nor by another extension ("cat.png.zip" names an archive; "cat.png." ends a sentence).
    static func extensionEnd(_ s: [Unicode.Scalar], dot: Int) -> Int? {
        var j = dot + 1
        while j < s.count, j - dot <= 5, isASCIILetter(s[j]) { j += 1 }
        guard j - dot == 4 || j - dot == 5,
            extensions.contains(String(String.UnicodeScalarView(s[(dot + 1)..<j].map(lowercased))))
        else { return nil }
        if j < s.count {
            if isNameCharacter(s[j]) || isWord(s[j]) { return nil }
            if s[j] == ".", j + 1 < s.count, isASCIIAlphanumeric(s[j + 1]) { return nil }
        }
        return j
    }

    /// Where the name before the dot at `dot` starts: letters (any script), digits, dashes,
    /// underscores and dots between two letters or digits, with a letter, digit, dash or
    /// underscore right before the dot. `nil` for a bare extension (".png").
    static func nameStart(_ s: [Unicode.Scalar], dot: Int) -> Int? {
        var k = dot
        var hasWord = false
        while k > 0 {
            let c = s[k - 1]
            if isWord(c) {
                hasWord = true
            } else if c == "." {
                // An inner dot: after a letter or digit, before an ASCII letter or digit or
                // any scalar beyond ASCII.
                guard k < dot, k >= 2, isWord(s[k - 2]), isASCIIAlphanumeric(s[k]) || !s[k].isASCII else { break }
            } else if !isNameCharacter(c) {
                break
            }
            k -= 1
        }
        return hasWord ? k : nil
    }

    /// Where a camera or screenshot name starting at `start` ends (with its extension, if
    /// one follows), or `nil`.
    static func cameraNameEnd(_ s: [Unicode.Scalar], at start: Int) -> Int? {
        var end = start
        while end < s.count, isNameCharacter(s[end]) { end += 1 }
        guard initials.contains(lowercased(s[start])), end - start >= 3,
            end == s.count || s[end].isASCII || !isWord(s[end])
        else { return nil }
        var name = ""
        for c in s[start..<end] { name.unicodeScalars.append(lowercased(c)) }
        var nameEnd: Int?
        if isCameraName(name) {
            nameEnd = end
        } else if let dated = datedNames.first(where: { $0.word == name }) {
            nameEnd = dated.then.lazy.compactMap { dateEnd(s, after: end, word: $0) }.first
        }
        guard let nameEnd else { return nil }
        if nameEnd < s.count, s[nameEnd] == ".", let withExtension = extensionEnd(s, dot: nameEnd) {
            return withExtension
        }
        return nameEnd
    }

    /// Where `word` (e.g. " shot", any case) and then " 2023-01-01" end, when they follow
    /// `index`.
    static func dateEnd(_ s: [Unicode.Scalar], after index: Int, word: String) -> Int? {
        var j = index
        for expected in word.unicodeScalars {
            guard j < s.count, lowercased(s[j]) == expected else { return nil }
            j += 1
        }
        for expected in " dddd-dd-dd".unicodeScalars {
            guard j < s.count, expected == "d" ? ("0"..."9").contains(s[j]) : s[j] == expected else { return nil }
            j += 1
        }
        return j
    }

    // MARK: - Quotations

    /// Whether the scalar `range` of `input.text` lies inside a closed quotation
    /// (``TextAnalysis/quotedSpans(in:)``, on the `Character`s).
    static func isQuoted(_ range: Range<Int>, in input: ScoringInput) -> Bool {
        let text = input.text
        let scalars = text.unicodeScalars
        func characterOffset(_ k: Int) -> Int {
            text.distance(from: text.startIndex, to: scalars.index(scalars.startIndex, offsetBy: k))
        }
        let spans = input.quotedSpans
        guard !spans.isEmpty else { return false }
        let lower = characterOffset(range.lowerBound)
        let upper = characterOffset(range.upperBound)
        return spans.contains { span in
            span.isClosed && span.range.lowerBound < lower && upper < span.range.upperBound
        }
    }
}
