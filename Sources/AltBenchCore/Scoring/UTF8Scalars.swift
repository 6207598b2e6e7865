/// UTF-8 read by hand, for the reference caption tokenizer's byte scan. Swift strings hold
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
}
