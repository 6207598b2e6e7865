import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A loopback port that refuses every connection for as long as this value lives: a TCP
/// socket bound to 127.0.0.1 that never listens, so a connection gets a reset (ECONNREFUSED)
/// and no other socket can take the port.
///
/// For tests of a server that is not there. A server started and stopped frees its port, and
/// among tests running in parallel the next server to start may be handed it and answer what
/// was meant to be refused.
///
/// With `sharedWithServers`, the socket is bound with SO_REUSEADDR, so a server told to use
/// this port (which binds with SO_REUSEADDR, as Hummingbird does) may listen on it, stop, and
/// a later one listen again, while servers asking for any free port are never handed it: for a
/// test that restarts a server on the same port.
package final class ClosedPort: Sendable {
    package let port: Int
    private let descriptor: Int32

    package init(sharedWithServers: Bool = false) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw ClosedPortError("socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        if sharedWithServers { setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw ClosedPortError("bind 127.0.0.1:0: \(reason)")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }

    /// An OpenAI-style base URL on the port: `http://127.0.0.1:PORT/v1`.
    package var baseURL: String { "http://127.0.0.1:\(port)/v1" }
}

package struct ClosedPortError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
