import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IP address as its bytes: 4 for IPv4, 16 for IPv6. An IPv4-mapped IPv6 address
/// (`::ffff:192.0.2.1`) is the IPv4 address, so one client has one spelling.
package struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    package let bytes: [UInt8]

    /// Parses dotted IPv4 or textual IPv6 (no brackets, port or zone); nil otherwise.
    package init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 64 else { return nil }
        var v4 = in_addr()
        if trimmed.withCString({ inet_pton(AF_INET, $0, &v4) }) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard trimmed.withCString({ inet_pton(AF_INET6, $0, &v6) }) == 1 else { return nil }
        let all = withUnsafeBytes(of: &v6) { Array($0) }
        if all[0..<10].allSatisfy({ $0 == 0 }), all[10] == 0xff, all[11] == 0xff {
            bytes = Array(all[12..<16])
        } else {
            bytes = all
        }
    }

    /// The canonical spelling (`inet_ntop`): the same address always reads the same.
    package var description: String {
        var buffer = [CChar](repeating: 0, count: 64)
        if bytes.count == 4 {
            var v4 = in_addr()
            withUnsafeMutableBytes(of: &v4) { $0.copyBytes(from: bytes) }
            _ = inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count))
        } else {
            var v6 = in6_addr()
            withUnsafeMutableBytes(of: &v6) { $0.copyBytes(from: bytes) }
            _ = inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count))
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A range of addresses in CIDR notation (`10.0.0.0/8`, `fd00::/8`); an address alone is a
/// range of one (`/32`, `/128`).
package struct IPRange: Hashable, Sendable, CustomStringConvertible {
    package let network: IPAddress
    package let prefixLength: Int

    /// Parses `ADDRESS[/BITS]`; nil when the address or the prefix length is not valid for
    /// its family. Bits beyond the prefix are cleared, so `10.1.2.3/8` is `10.0.0.0/8`.
    package init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = IPAddress(String(parts[0])) else { return nil }
        let written6 = parts[0].contains(":")
        let maximum = written6 ? 128 : 32
        var length = maximum
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let bits = Int(parts[1]), bits <= maximum
            else { return nil }
            length = bits
        }
        // An IPv4-mapped IPv6 range (`::ffff:10.0.0.0/104`) is the IPv4 range.
        if address.bytes.count == 4, written6 {
            guard length >= 96 else { return nil }
            length -= 96
        }
        prefixLength = length
        network = IPAddress(masking: address, to: length)
    }

    /// Whether `address` is in the range (an IPv4 address is never in an IPv6 range).
    package func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        return IPAddress(masking: address, to: prefixLength) == network
    }

    package var description: String { "\(network)/\(prefixLength)" }
}

extension IPAddress {
    /// `address` with the bits after the first `length` cleared.
    init(masking address: IPAddress, to length: Int) {
        var bytes = address.bytes
        for index in bytes.indices {
            let kept = min(8, max(0, length - index * 8))
            bytes[index] &= kept == 8 ? 0xff : ~(0xff >> UInt8(kept))
        }
        self.bytes = bytes
    }
}

/// Which address a request comes from: the connection's peer, or, when the peer is a reverse
/// proxy in a trusted range, the address that proxy saw, read from `X-Forwarded-For`.
///
/// The header is read from the right, the end the trusted proxies append to: each address in a
/// trusted range is one more proxy and is skipped, and the first address outside them is the
/// client (what is left of it was written by the client and may be forged). When every address
/// is trusted, the leftmost is the client. A value that is not an address ends the walk at the
/// nearest proxy's address: the chain cannot be followed past it.
struct ClientAddressResolver: Sendable {
    let trusted: [IPRange]

    /// The client's address for a connection from `peer` (its IP text, or "unknown") whose
    /// request carried these `X-Forwarded-For` values, in order.
    func client(peer: String, forwardedFor: [String]) -> String {
        guard let peerAddress = IPAddress(peer) else { return peer }
        guard isTrusted(peerAddress), !forwardedFor.isEmpty else { return peerAddress.description }
        let hops = forwardedFor.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
        var nearest = peerAddress
        for hop in hops.reversed() {
            guard let address = IPAddress(String(hop)) else { return nearest.description }
            if !isTrusted(address) { return address.description }
            nearest = address
        }
        return nearest.description
    }

    func isTrusted(_ address: IPAddress) -> Bool {
        trusted.contains { $0.contains(address) }
    }
}
