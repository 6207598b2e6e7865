/// UTF-8 read and written by hand, for the scorers' byte-level fast paths. Swift strings hold
/// valid UTF-8, so a lead byte tells the length of its sequence.
enum UTF8Scalars {
    /// The scalar value whose encoding starts at `index`, and the index just past it. A
    /// sequence cut short by the end of `bytes` decodes what is there.
    @inline(__always)
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (value: UInt32, end: Int) {
        let lead = UInt32(bytes[index])
        let length: Int
        var value: UInt32
        switch lead {
        case ..<0x80: return (lead, index + 1)
        case ..<0xE0: (value, length) = (lead & 0x1F, 2)
        case ..<0xF0: (value, length) = (lead & 0x0F, 3)
        default: (value, length) = (lead & 0x07, 4)
        }
        let end = min(index + length, bytes.count)
        var k = index + 1
        while k < end {
            value = value << 6 | UInt32(bytes[k] & 0x3F)
            k += 1
        }
        return (value, end)
    }

    /// The scalar at `index` (U+FFFD for a value that is not one), and the index past it.
    @inline(__always)
    static func scalar(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (scalar: Unicode.Scalar, end: Int) {
        let (value, end) = decode(bytes, at: index)
        return (Unicode.Scalar(value) ?? "\u{FFFD}", end)
    }

    /// Appends the UTF-8 encoding of the scalar value `v` to `bytes`.
    @inline(__always)
    static func append(_ v: UInt32, to bytes: inout [UInt8]) {
        switch v {
        case ..<0x80:
            bytes.append(UInt8(v))
        case ..<0x800:
            bytes.append(UInt8(0xC0 | (v >> 6)))
            bytes.append(UInt8(0x80 | (v & 0x3F)))
        case ..<0x10000:
            bytes.append(UInt8(0xE0 | (v >> 12)))
            bytes.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            bytes.append(UInt8(0x80 | (v & 0x3F)))
        default:
            bytes.append(UInt8(0xF0 | (v >> 18)))
            bytes.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            bytes.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            bytes.append(UInt8(0x80 | (v & 0x3F)))
        }
    }
}
