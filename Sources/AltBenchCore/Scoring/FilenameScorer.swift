/// Flags a file name in the answer (GitHub accessibility scanner; double-great/alt-text).
///
/// A file name says nothing about the picture and is read out character by character. Two
/// forms are flagged:
/// - `name.ext` with an image extension (.png .jpg .jpeg .gif .svg .webp .bmp .ico .heic
///   .heif .tif .tiff .avif, any case): the GitHub accessibility scanner's list plus the
///   formats phones and browsers write today. The name is letters of any script, digits,
///   dashes, underscores and inner dots, so "cat.png", "IMG_1234.JPG", "my-photo.final.jpeg" and
///   the "cat.jpg" of "https://example.com/cat.jpg" count. A bare extension ("a .png
///   file", ".svg") names a format, not a file, and passes.
/// - Camera and screenshot names: IMG_1234, IMG-20230101-WA0001, MVIMG_…, VID_…, DSC_0001,
///   DSCN1234, DSCF1234, DSC01234, PXL_20230101_123456789, DJI_0001, GOPR1234,
///   Screenshot_20230101, "Screenshot 2023-01-01", "Screenshot from 2023-01-01",
///   "Screen Shot 2023-01-01", "WhatsApp Image 2023-01-01". The prefix alone is not a name
///   ("IMG", "DSC", "imgur", the camera "DSC-RX100").
///
/// "Node.js", "example.com", "version 1.2", "a PNG icon" and "JPEG artifacts" are not file
/// names. A file name inside quotation marks is a transcription (a screenshot of a folder
/// showing “IMG_1234.jpg”) and passes.
///
/// The detail is the first file name, as written: "IMG_1234.JPG".
public struct FilenameScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        var text = input.text
        let found: (range: Range<Int>, name: String)? = text.withUTF8 { bytes in
            var from = 0
            while let range = Self.fileName(in: bytes, from: from) {
                if !(PerceptionMetaScorer.mayHoldQuotation(bytes) && Self.isQuoted(range, in: input)) {
                    return (range, String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
                }
                from = range.upperBound
            }
            return nil
        }
        guard let found else { return Self.passed }
        return [.flag(ScoreName.filename, true, detail: found.name)]
    }

    /// The score of an answer that passes, made once.
    static let passed = [Score.flag(ScoreName.filename, false)]

    static let extensions: Set<String> = [
        "png", "jpg", "jpeg", "gif", "svg", "webp", "bmp", "ico", "heic", "heif", "tif", "tiff",
        "avif",
    ]

    // MARK: - Bytes

    @inline(__always)
    static func isASCIILetter(_ b: UInt8) -> Bool {
        let folded = b | 0x20
        return folded >= UInt8(ascii: "a") && folded <= UInt8(ascii: "z")
    }

    @inline(__always)
    static func isDigit(_ b: UInt8) -> Bool {
        b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")
    }

    @inline(__always)
    static func isASCIIAlphanumeric(_ b: UInt8) -> Bool {
        isASCIILetter(b) || isDigit(b)
    }

    /// Where a file name may be found, for ``fileName(in:from:)``'s scan sixteen bytes at a
    /// time: a dot before a letter or, at a word start, the first three letters of a camera
    /// name. Most answers have neither and pass at once.
    enum Sites: ByteScan.Sites {
        @inline(__always)
        static func lanes(_ w: ByteScan.Window) -> ByteScan.Mask {
            let c = w.current | ByteScan.splat(" ")
            let n = w.next | ByteScan.splat(" ")
            let a = w.afterNext | ByteScan.splat(" ")
            func starts(_ x: Unicode.Scalar, _ y: Unicode.Scalar, _ z: Unicode.Scalar) -> ByteScan.Mask {
                c .== ByteScan.splat(x) .& n .== ByteScan.splat(y) .& a .== ByteScan.splat(z)
            }
            let isLetterNext = (n &- ByteScan.splat("a")) .< ByteScan.Lanes(repeating: 26)
            let dot = w.current .== ByteScan.splat(".") .& isLetterNext
            let camera =
                starts("i", "m", "g") .| starts("m", "v", "i") .| starts("v", "i", "d") .| starts("d", "s", "c")
                .| starts("p", "x", "l") .| starts("d", "j", "i") .| starts("g", "o", "p") .| starts("s", "c", "r")
                .| starts("w", "h", "a")
            return dot .| (camera .& .!ByteScan.isAlphanumeric(w.previous))
        }

        static func verify(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
            fileName(in: bytes, at: i) != nil
        }
    }

    /// Whether three lowercased letters, packed, open a camera or screenshot name: img, mvi,
    /// vid, dsc, pxl, dji, gop, scr, wha.
    @inline(__always)
    static func isCameraPrefix(_ prefix: UInt32) -> Bool {
        switch prefix {
        case 0x69_6D_67, 0x6D_76_69, 0x76_69_64, 0x64_73_63, 0x70_78_6C, 0x64_6A_69, 0x67_6F_70,
            0x73_63_72, 0x77_68_61:
            true
        default:
            false
        }
    }

    /// Whether the bytes ending just before `end` are a letter or digit: ASCII, or a
    /// non-ASCII scalar with the Alphabetic or Numeric property ("é", "ж", "猫").
    static func isWordBefore(_ bytes: UnsafeBufferPointer<UInt8>, _ end: Int) -> Bool {
        guard end > 0 else { return false }
        let last = bytes[end - 1]
        if last < 0x80 { return isASCIIAlphanumeric(last) }
        guard let scalar = scalar(endingAt: end, in: bytes) else { return false }
        return scalar.value.properties.isAlphabetic || scalar.value.properties.numericType != nil
    }

    /// The scalar whose UTF-8 ends just before `end`, and where it starts.
    static func scalar(endingAt end: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (value: Unicode.Scalar, start: Int)? {
        var start = end - 1
        while start > 0, end - start < 4, bytes[start] & 0xC0 == 0x80 { start -= 1 }
        let lead = bytes[start]
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        guard start + length == end else { return nil }
        var value = UInt32(length == 1 ? lead : lead & (0xFF >> (length + 1)))
        for k in (start + 1)..<end { value = value << 6 | UInt32(bytes[k] & 0x3F) }
        return Unicode.Scalar(value).map { ($0, start) }
    }

    @inline(__always)
    static func isNameByte(_ b: UInt8) -> Bool {
        isASCIIAlphanumeric(b) || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
    }

    // MARK: - File names

    /// The byte range of the first file name found at or after byte `from` (at its dot, or
    /// at the start of a camera name), or `nil`: ``fileNameByteByByte(in:from:)``, looking
    /// only where ``Sites`` marks.
    static func fileName(in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Range<Int>? {
        ByteScan.first(Sites.self, in: bytes, from: from).flatMap { fileName(in: bytes, at: $0) }
    }

    /// ``fileName(in:from:)`` trying every byte; the tests check that both agree.
    static func fileNameByteByByte(in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Range<Int>? {
        var i = from
        while i < bytes.count {
            if let found = fileName(in: bytes, at: i) { return found }
            i += 1
        }
        return nil
    }

    /// The file name whose dot is at byte `i`, or the camera name that starts there.
    static func fileName(in bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Range<Int>? {
        let b = bytes[i]
        if b == UInt8(ascii: "."), let end = extensionEnd(bytes, dot: i), let start = nameStart(bytes, dot: i) {
            return start..<end
        }
        if isASCIILetter(b), i == 0 || !isNameByte(bytes[i - 1]), mayOpenCameraName(bytes, at: i),
            !isWordBefore(bytes, i), let end = cameraNameEnd(bytes, at: i)
        {
            return i..<end
        }
        return nil
    }

    /// Where an image extension after the dot at `dot` ends, when one does: three or four
    /// letters from ``extensions`` not followed by more of a word ("cat.pngs" is no file).
    static func extensionEnd(_ bytes: UnsafeBufferPointer<UInt8>, dot: Int) -> Int? {
        let n = bytes.count
        var j = dot + 1
        while j < n, j - dot <= 5, isASCIILetter(bytes[j]) { j += 1 }
        guard j - dot == 4 || j - dot == 5 else { return nil }
        var ext = ""
        for b in bytes[(dot + 1)..<j] { ext.unicodeScalars.append(Unicode.Scalar(b | 0x20)) }
        guard extensions.contains(ext) else { return nil }
        if j < n {
            if isNameByte(bytes[j]) || bytes[j] >= 0x80 && isWordAfter(bytes, j) { return nil }
            // "cat.png.zip" names an archive; "cat.png." ends a sentence.
            if bytes[j] == UInt8(ascii: "."), j + 1 < n, isASCIIAlphanumeric(bytes[j + 1]) { return nil }
        }
        return j
    }

    /// Whether a letter or digit starts at `index`.
    static func isWordAfter(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int) -> Bool {
        var end = index + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        return isWordBefore(bytes, end)
    }

    /// Where the name before the dot at `dot` starts: letters (any script), digits, dashes,
    /// underscores and dots between two letters or digits, with a letter, digit, dash or
    /// underscore right before the dot. `nil` for a bare extension (".png").
    static func nameStart(_ bytes: UnsafeBufferPointer<UInt8>, dot: Int) -> Int? {
        var k = dot
        var hasWord = false
        while k > 0 {
            let c = bytes[k - 1]
            if c >= 0x80 {
                guard let (scalar, start) = scalar(endingAt: k, in: bytes),
                    scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                else { break }
                hasWord = true
                k = start
            } else if isNameByte(c) {
                if isASCIIAlphanumeric(c) { hasWord = true }
                k -= 1
            } else if c == UInt8(ascii: "."), k < dot, k >= 2, isWordBefore(bytes, k - 1),
                isASCIIAlphanumeric(bytes[k]) || bytes[k] >= 0x80
            {
                k -= 1
            } else {
                break
            }
        }
        return hasWord ? k : nil
    }

    /// Whether the three bytes at `start` are a camera prefix (``isCameraPrefix(_:)``), which
    /// every name ``cameraNameEnd(_:at:)`` finds opens with.
    @inline(__always)
    static func mayOpenCameraName(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        guard start + 2 < bytes.count else { return false }
        return isCameraPrefix(
            (UInt32(bytes[start] | 0x20) << 16) | (UInt32(bytes[start + 1] | 0x20) << 8)
                | UInt32(bytes[start + 2] | 0x20))
    }

    /// Where a camera or screenshot name starting at `start` ends (with its extension, if
    /// one follows), or `nil`.
    static func cameraNameEnd(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        switch bytes[start] | 0x20 {
        case UInt8(ascii: "i"), UInt8(ascii: "m"), UInt8(ascii: "v"), UInt8(ascii: "d"), UInt8(ascii: "p"),
            UInt8(ascii: "g"), UInt8(ascii: "s"), UInt8(ascii: "w"):
            break
        default:
            return nil
        }
        var end = start
        while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
        guard end - start >= 3, end == bytes.count || !isWordAfter(bytes, end) || bytes[end] < 0x80 else {
            return nil
        }
        // Every name below opens with one of the camera prefixes.
        guard mayOpenCameraName(bytes, at: start) else { return nil }
        let token = bytes[start..<end].map { isASCIILetter($0) ? $0 | 0x20 : $0 }
        var nameEnd: Int?
        if isCameraToken(token) {
            nameEnd = end
        } else if token.elementsEqual("screenshot".utf8) {
            nameEnd = dateEnd(bytes, after: end, word: " from") ?? dateEnd(bytes, after: end, word: "")
        } else if token.elementsEqual("screen".utf8) {
            nameEnd = dateEnd(bytes, after: end, word: " shot")
        } else if token.elementsEqual("whatsapp".utf8) {
            nameEnd = dateEnd(bytes, after: end, word: " image")
        }
        guard let nameEnd else { return nil }
        if nameEnd < bytes.count, bytes[nameEnd] == UInt8(ascii: "."),
            let withExtension = extensionEnd(bytes, dot: nameEnd)
        {
            return withExtension
        }
        return nameEnd
    }

    /// Whether a lowercased token is a camera file name: a known prefix, then digits.
    static func isCameraToken(_ token: [UInt8]) -> Bool {
        func digits(_ bytes: ArraySlice<UInt8>) -> Int { bytes.reduce(0) { $0 + (isDigit($1) ? 1 : 0) } }
        func allDigits(_ bytes: ArraySlice<UInt8>) -> Bool { digits(bytes) == bytes.count }
        func hasPrefix(_ prefix: String) -> Bool { token.starts(with: prefix.utf8) }

        if hasPrefix("img") || hasPrefix("mvimg") {
            // IMG_1234, IMG-20230101-WA0001, IMG_E1234, IMG1234.
            let rest = token.dropFirst(hasPrefix("img") ? 3 : 5)
            guard let first = rest.first, digits(rest) >= 3 else { return false }
            return first == UInt8(ascii: "_") || first == UInt8(ascii: "-") || allDigits(rest)
        }
        for prefix in ["vid_", "pxl_", "dji_", "screenshot_", "screenshot-"] where hasPrefix(prefix) {
            let rest = token.dropFirst(prefix.utf8.count)
            return rest.first.map(isDigit) == true && digits(rest) >= 3
        }
        if hasPrefix("dsc") {
            // DSC_0001, DSCN1234, DSCF1234, DSC01234.
            var rest = token.dropFirst(3)
            if let first = rest.first, first == UInt8(ascii: "_") || first == UInt8(ascii: "n")
                || first == UInt8(ascii: "f")
            {
                rest = rest.dropFirst()
            }
            return rest.count >= 3 && allDigits(rest)
        }
        if hasPrefix("gopr") {
            let rest = token.dropFirst(4)
            return rest.count >= 4 && allDigits(rest)
        }
        return false
    }

    /// Where " 2023-01-01" ends, after `word` (e.g. " shot", any case) that follows `index`.
    static func dateEnd(_ bytes: UnsafeBufferPointer<UInt8>, after index: Int, word: String) -> Int? {
        var j = index
        for expected in word.utf8 {
            guard j < bytes.count, bytes[j] | (expected == 32 ? 0 : 0x20) == expected else { return nil }
            j += 1
        }
        let shape = Array(" dddd-dd-dd".utf8)
        guard j + shape.count <= bytes.count else { return nil }
        for (k, expected) in shape.enumerated() {
            let b = bytes[j + k]
            guard expected == UInt8(ascii: "d") ? isDigit(b) : b == expected else { return nil }
        }
        return j + shape.count
    }

    // MARK: - Quotations

    /// Whether the byte `range` of `input.text` lies inside a closed quotation.
    ///
    /// When every scalar of the text is a `Character` of its own, scalar offsets are
    /// `Character` offsets and ``QuotedText`` finds the quotations; else
    /// ``TextAnalysis/quotedSpans(in:)`` does, on the `Character`s.
    static func isQuoted(_ range: Range<Int>, in input: ScoringInput) -> Bool {
        var text = input.text
        if let found = text.withUTF8({ bytes -> Bool? in
            guard ByteScan.scalarCount(bytes) == input.characters.count else { return nil }
            let lower = ByteScan.scalarCount(UnsafeBufferPointer(rebasing: bytes[..<range.lowerBound]))
            let upper = lower + ByteScan.scalarCount(UnsafeBufferPointer(rebasing: bytes[range]))
            return QuotedText(bytes).spans.contains { span in
                span.isClosed && span.range.lowerBound < lower && upper < span.range.upperBound
            }
        }) {
            return found
        }
        return isQuotedByCharacters(range, in: input)
    }

    /// ``isQuoted(_:in:)`` on the `Character`s, whatever the text.
    static func isQuotedByCharacters(_ range: Range<Int>, in input: ScoringInput) -> Bool {
        let text = input.text
        let utf8 = text.utf8
        let lower = text.distance(from: text.startIndex, to: utf8.index(utf8.startIndex, offsetBy: range.lowerBound))
        let upper = lower + text.distance(
            from: utf8.index(utf8.startIndex, offsetBy: range.lowerBound),
            to: utf8.index(utf8.startIndex, offsetBy: range.upperBound))
        return input.quotedSpans.contains { span in
            span.isClosed && span.range.lowerBound < lower && upper < span.range.upperBound
        }
    }
}
