import Foundation

/// Reads an image file's format and pixel size from its bytes, without decoding any pixels.
///
/// altbench sends images as data URLs, so it must name the MIME type itself and
/// must not trust a file's extension: a `.png` may hold a JPEG, or be a text file.
/// Real formats the vision APIs refuse (BMP, TIFF, HEIC, ...) are named so the
/// user is told to convert the file instead of being told it is not an image.
///
/// Every read is bounds-checked: dataset files are user input and may be cut
/// short or hostile, and a bad file must become an `ImageProblem`, never a trap.
public enum ImageSniffer {
    /// The format and pixel size of an image the vision APIs accept.
    ///
    /// - Parameters:
    ///   - bytes: the whole file; JPEG's frame header may come after large EXIF or ICC segments.
    ///   - path: the file as the dataset names it, carried into the error.
    /// - Throws: `.unsupportedFormat` for a real image in another format, `.corruptHeader`
    ///   for a known format whose header is cut short or gives a zero size, `.notAnImage` otherwise.
    public static func sniff(_ bytes: Data, path: String) throws(ImageProblem) -> ImageHeader {
        let reader = ByteReader(bytes)
        // Four bytes are enough to be sure of PNG and GIF: a file that gets that far
        // and then breaks is a damaged image, and saying so is more helpful.
        if reader.matches([0x89, 0x50, 0x4E, 0x47], at: 0) {
            return try png(reader, path: path)
        }
        if reader.matches([0xFF, 0xD8, 0xFF], at: 0) {
            return try jpeg(reader, path: path)
        }
        if reader.matches("GIF8", at: 0) {
            return try gif(reader, path: path)
        }
        if reader.matches("RIFF", at: 0), reader.matches("WEBP", at: 8) {
            return try webp(reader, path: path)
        }
        if let name = unsupportedFormatName(reader) {
            throw .unsupportedFormat(path: path, format: name)
        }
        throw .notAnImage(path: path)
    }

    /// Whether a GIF holds more than one frame; false for anything that is not a readable GIF.
    ///
    /// OpenAI accepts only non-animated GIFs. Frames are counted by walking the
    /// block structure rather than searching for the 0x2C byte, which also occurs
    /// inside palettes, comments and compressed pixel data.
    public static func isAnimatedGIF(_ bytes: Data) -> Bool {
        let reader = ByteReader(bytes)
        guard reader.matches("GIF87a", at: 0) || reader.matches("GIF89a", at: 0),
              let screenFlags = reader.uint8(at: 10)
        else { return false }
        var position = 13 + colorTableSize(flags: screenFlags)
        var frames = 0
        while let introducer = reader.uint8(at: position) {
            switch introducer {
            case 0x21:  // extension: label, then data sub-blocks
                guard let end = reader.endOfSubBlocks(from: position + 2) else { return false }
                position = end
            case 0x2C:  // image descriptor
                frames += 1
                if frames > 1 { return true }
                guard let flags = reader.uint8(at: position + 9) else { return false }
                // Skip the descriptor, its local colour table and the LZW minimum code size.
                let imageData = position + 10 + colorTableSize(flags: flags) + 1
                guard let end = reader.endOfSubBlocks(from: imageData) else { return false }
                position = end
            default:  // 0x3B trailer, or bytes no GIF decoder would read on from
                return false
            }
        }
        return false
    }

    // MARK: - Accepted formats

    private static func png(_ reader: ByteReader, path: String) throws(ImageProblem) -> ImageHeader {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        // A damaged signature is usually a file sent through a text-mode transfer
        // that rewrote the line endings, which also shifts every byte after it.
        guard reader.matches(signature, at: 0),
              reader.uint32BE(at: 8) == 13, reader.matches("IHDR", at: 12),
              let width = reader.uint32BE(at: 16), let height = reader.uint32BE(at: 20)
        else { throw .corruptHeader(path: path, format: .png) }
        return try header(.png, width: width, height: height, limit: Int(Int32.max), path: path)
    }

    private static func jpeg(_ reader: ByteReader, path: String) throws(ImageProblem) -> ImageHeader {
        let corrupt = ImageProblem.corruptHeader(path: path, format: .jpeg)
        var position = 2
        while true {
            guard let byte = reader.uint8(at: position) else { throw corrupt }
            guard byte == 0xFF else {
                // Stray bytes between segments: decoders skip them, so the API would too.
                position += 1
                continue
            }
            var markerAt = position + 1
            while reader.uint8(at: markerAt) == 0xFF { markerAt += 1 }  // fill bytes
            guard let marker = reader.uint8(at: markerAt) else { throw corrupt }
            position = markerAt + 1
            switch marker {
            case 0x00, 0x01, 0xD0...0xD8:
                continue  // a stuffed zero or a standalone marker: no length follows
            case 0xD9, 0xDA:
                throw corrupt  // end of image, or scan data, before any frame header
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                // Length, precision, then height before width.
                guard let length = reader.uint16BE(at: position), length >= 8,
                      let height = reader.uint16BE(at: position + 3),
                      let width = reader.uint16BE(at: position + 5)
                else { throw corrupt }
                return try header(.jpeg, width: width, height: height, limit: .max, path: path)
            default:
                guard let length = reader.uint16BE(at: position), length >= 2 else { throw corrupt }
                position += length
            }
        }
    }

    private static func gif(_ reader: ByteReader, path: String) throws(ImageProblem) -> ImageHeader {
        guard reader.matches("GIF87a", at: 0) || reader.matches("GIF89a", at: 0),
              let width = reader.uint16LE(at: 6), let height = reader.uint16LE(at: 8)
        else { throw .corruptHeader(path: path, format: .gif) }
        return try header(.gif, width: width, height: height, limit: .max, path: path)
    }

    private static func webp(_ reader: ByteReader, path: String) throws(ImageProblem) -> ImageHeader {
        let corrupt = ImageProblem.corruptHeader(path: path, format: .webp)
        // The first chunk's payload starts at 20, after its four-character code and size.
        let payload = 20
        if reader.matches("VP8 ", at: 12) {
            // Lossy: a 3-byte frame tag, the key frame start code, then 14-bit sizes
            // whose top two bits are a scaling hint, not part of the size.
            guard reader.matches([0x9D, 0x01, 0x2A], at: payload + 3),
                  let width = reader.uint16LE(at: payload + 6),
                  let height = reader.uint16LE(at: payload + 8)
            else { throw corrupt }
            return try header(.webp, width: width & 0x3FFF, height: height & 0x3FFF, limit: .max, path: path)
        }
        if reader.matches("VP8L", at: 12) {
            // Lossless: signature 0x2F, then width-1 and height-1 in 14 bits each, LSB first.
            guard reader.uint8(at: payload) == 0x2F, let bits = reader.uint32LE(at: payload + 1) else {
                throw corrupt
            }
            return try header(
                .webp, width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1, limit: .max, path: path)
        }
        if reader.matches("VP8X", at: 12) {
            // Extended (alpha, animation, metadata): flags, 3 reserved bytes, then the
            // canvas width-1 and height-1 in 24 bits each.
            guard let width = reader.uint24LE(at: payload + 4), let height = reader.uint24LE(at: payload + 7) else {
                throw corrupt
            }
            return try header(.webp, width: width + 1, height: height + 1, limit: .max, path: path)
        }
        throw corrupt
    }

    /// The header, once the size is known to be one a decoder could allocate.
    private static func header(
        _ format: ImageFormat, width: Int, height: Int, limit: Int, path: String
    ) throws(ImageProblem) -> ImageHeader {
        guard (1...limit).contains(width), (1...limit).contains(height) else {
            throw .corruptHeader(path: path, format: format)
        }
        return ImageHeader(format: format, width: width, height: height)
    }

    /// Bytes taken by a GIF colour table, from the flags byte that announces it.
    private static func colorTableSize(flags: UInt8) -> Int {
        flags & 0x80 == 0 ? 0 : 3 << (Int(flags & 0x07) + 1)
    }

    // MARK: - Formats the APIs refuse

    /// The everyday name of a real image format the vision APIs do not accept, if the bytes are one.
    private static func unsupportedFormatName(_ reader: ByteReader) -> String? {
        if isBMP(reader) { return "BMP" }
        for magic in ["II*\0", "MM\0*", "II+\0", "MM\0+"] where reader.matches(magic, at: 0) {
            return "TIFF"  // the last two are BigTIFF
        }
        if let name = isoMediaImageName(reader) { return name }
        if reader.matches([0xFF, 0x0A], at: 0)
            || reader.matches([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A], at: 0) {
            return "JPEG XL"
        }
        if reader.matches([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A], at: 0) {
            return "JPEG 2000"
        }
        if reader.matches("8BPS", at: 0) { return "Photoshop (PSD)" }
        // Reserved zero, type 1, and at least one image: four bytes alone occur in plenty of binaries.
        if reader.matches([0, 0, 1, 0], at: 0), let count = reader.uint16LE(at: 4), count > 0 {
            return "ICO"
        }
        if isSVG(reader) { return "SVG" }
        // PDF is deliberately not here: it is a document, so it is reported as not an image.
        return nil
    }

    /// Whether the bytes are a BMP; "BM" alone also starts ordinary text, so the DIB header size must be a real one.
    private static func isBMP(_ reader: ByteReader) -> Bool {
        guard reader.matches("BM", at: 0), let dibSize = reader.uint32LE(at: 14) else { return false }
        return [12, 16, 40, 52, 56, 64, 108, 124].contains(dibSize)
    }

    /// HEIC, HEIF or AVIF, from the brands of an ISO media `ftyp` box; nil for video and other ISO files.
    private static func isoMediaImageName(_ reader: ByteReader) -> String? {
        guard reader.matches("ftyp", at: 4), let boxSize = reader.uint32BE(at: 0), boxSize >= 16 else { return nil }
        // Brands: the major one at 8, then compatible ones after the minor version.
        let end = min(boxSize, reader.count, 4096)
        var brands: Set<String> = []
        for offset in stride(from: 8, to: end - 3, by: 4) where offset != 12 {
            if let brand = reader.ascii(at: offset, count: 4) { brands.insert(brand) }
        }
        // An AVIF also lists the generic HEIF brand, and a HEIC may too, so the specific ones win.
        if !brands.isDisjoint(with: ["avif", "avis"]) { return "AVIF" }
        if !brands.isDisjoint(with: ["heic", "heix", "heim", "heis", "hevc", "hevx"]) { return "HEIC" }
        if !brands.isDisjoint(with: ["mif1", "msf1"]) { return "HEIF" }
        return nil
    }

    /// Whether text opens with an `<svg` element after the prolog an SVG file may carry.
    ///
    /// Skips a UTF-8 byte order mark, whitespace, the XML declaration, processing
    /// instructions, comments and a DOCTYPE; an HTML page with an inline SVG does not match.
    private static func isSVG(_ reader: ByteReader) -> Bool {
        let limit = min(reader.count, 65_536)  // a prolog is short; no need to scan a whole big file
        var position = reader.matches([0xEF, 0xBB, 0xBF], at: 0) ? 3 : 0
        while position < limit {
            guard let byte = reader.uint8(at: position) else { return false }
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                position += 1
            } else if reader.matches("<?", at: position) {
                guard let end = reader.firstIndex(of: "?>", from: position + 2, before: limit) else { return false }
                position = end + 2
            } else if reader.matches("<!--", at: position) {
                guard let end = reader.firstIndex(of: "-->", from: position + 4, before: limit) else { return false }
                position = end + 3
            } else if reader.matches("<!DOCTYPE", at: position) {
                guard let end = reader.endOfDoctype(from: position + 9, before: limit) else { return false }
                position = end
            } else if reader.matches("<svg", at: position) {
                guard let next = reader.uint8(at: position + 4) else { return false }
                return next == 0x3E || next == 0x2F || next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0D
            } else {
                return false
            }
        }
        return false
    }
}

/// Bounds-checked reads at offsets from the start of a `Data`, which may be a slice not starting at 0.
private struct ByteReader {
    let data: Data

    init(_ data: Data) { self.data = data }

    var count: Int { data.count }

    func uint8(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < data.count else { return nil }
        return data[data.startIndex + offset]
    }

    /// Reads `count` bytes as one integer, most significant first when `bigEndian`.
    private func integer(at offset: Int, count: Int, bigEndian: Bool) -> Int? {
        guard offset >= 0, offset <= data.count - count else { return nil }
        var value = 0
        for index in 0..<count {
            let byte = Int(data[data.startIndex + offset + (bigEndian ? index : count - 1 - index)])
            value = value << 8 | byte
        }
        return value
    }

    func uint16BE(at offset: Int) -> Int? { integer(at: offset, count: 2, bigEndian: true) }
    func uint16LE(at offset: Int) -> Int? { integer(at: offset, count: 2, bigEndian: false) }
    func uint24LE(at offset: Int) -> Int? { integer(at: offset, count: 3, bigEndian: false) }
    func uint32BE(at offset: Int) -> Int? { integer(at: offset, count: 4, bigEndian: true) }
    func uint32LE(at offset: Int) -> Int? { integer(at: offset, count: 4, bigEndian: false) }

    func matches(_ bytes: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, offset <= data.count - bytes.count else { return false }
        for (index, byte) in bytes.enumerated() where data[data.startIndex + offset + index] != byte {
            return false
        }
        return true
    }

    func matches(_ text: String, at offset: Int) -> Bool {
        matches(Array(text.utf8), at: offset)
    }

    func ascii(at offset: Int, count: Int) -> String? {
        guard offset >= 0, offset <= data.count - count else { return nil }
        let bytes = data[(data.startIndex + offset)..<(data.startIndex + offset + count)]
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    func firstIndex(of text: String, from start: Int, before limit: Int) -> Int? {
        let needle = Array(text.utf8)
        var position = start
        while position + needle.count <= limit {
            if matches(needle, at: position) { return position }
            position += 1
        }
        return nil
    }

    /// The offset just past a DOCTYPE's closing `>`, stepping over an internal subset in brackets.
    func endOfDoctype(from start: Int, before limit: Int) -> Int? {
        var depth = 0
        var position = start
        while position < limit, let byte = uint8(at: position) {
            switch byte {
            case UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "]"): depth = max(0, depth - 1)
            case UInt8(ascii: ">") where depth == 0: return position + 1
            default: break
            }
            position += 1
        }
        return nil
    }

    /// The offset just past a GIF's chain of data sub-blocks (size byte, data), ended by a zero size.
    func endOfSubBlocks(from start: Int) -> Int? {
        var position = start
        while let size = uint8(at: position) {
            position += 1
            if size == 0 { return position }
            position += Int(size)
        }
        return nil
    }
}
