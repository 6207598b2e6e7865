import Foundation

/// Writes PNG files without an image library: 8-bit RGB or 8-bit indexed pixels, in a zlib
/// stream of "stored" (uncompressed) deflate blocks, with the CRC-32 and Adler-32 the format
/// requires. Any PNG reader opens them; they are as large as their pixels, so they suit
/// generated test images, not photos.
package enum PNGEncoder {
    /// An 8-bit RGB image: `pixels` holds `width × height × 3` bytes, row by row.
    package static func rgb(width: Int, height: Int, pixels: [UInt8]) -> Data {
        precondition(pixels.count == width * height * 3, "RGB pixels must be width × height × 3 bytes")
        let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0]
        return file(header: header, extra: [], raw: rows(pixels, rowBytes: width * 3, height: height))
    }

    /// An 8-bit indexed image: `indices` holds one palette index per pixel, row by row;
    /// `palette` at most 256 RGB colours.
    package static func indexed(width: Int, height: Int, palette: [(UInt8, UInt8, UInt8)], indices: [UInt8]) -> Data {
        precondition(indices.count == width * height, "one index per pixel")
        precondition((1...256).contains(palette.count), "a palette holds 1 to 256 colours")
        let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 3, 0, 0, 0]
        let plte = palette.flatMap { [$0.0, $0.1, $0.2] }
        return file(header: header, extra: [chunk("PLTE", plte)], raw: rows(indices, rowBytes: width, height: height))
    }

    /// Each row prefixed with filter type 0 (none).
    static func rows(_ bytes: [UInt8], rowBytes: Int, height: Int) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (rowBytes + 1))
        for row in 0..<height {
            raw.append(0)
            raw += bytes[(row * rowBytes)..<((row + 1) * rowBytes)]
        }
        return raw
    }

    static func file(header: [UInt8], extra: [[UInt8]], raw: [UInt8]) -> Data {
        // zlib: CMF/FLG (deflate, 32 KB window, no dictionary), stored blocks, Adler-32.
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65535, raw.count - offset)
            zlib.append(offset + length == raw.count ? 1 : 0)  // BFINAL, BTYPE 00
            zlib += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8 & 0xFF)]
            zlib += raw[offset..<(offset + length)]
            offset += length
        } while offset < raw.count
        zlib += bigEndian(adler32(raw))
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        file += chunk("IHDR", header)
        for chunk in extra { file += chunk }
        file += chunk("IDAT", zlib)
        file += chunk("IEND", [])
        return Data(file)
    }

    static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }
}
