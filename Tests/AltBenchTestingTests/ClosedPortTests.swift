import AltBenchTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("ClosedPort")
struct ClosedPortTests {
    /// errno of a plain connect(2) to 127.0.0.1:port, or 0 when it connects.
    static func connectErrno(_ port: Int) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return connected == 0 ? 0 : errno
    }

    @Test("a connection is refused, and the port is held: a server asking for it cannot have it")
    func refusesAndHolds() async throws {
        let closed = try ClosedPort()
        #expect(closed.port > 0)
        #expect(closed.baseURL == "http://127.0.0.1:\(closed.port)/v1")
        #expect(Self.connectErrno(closed.port) == ECONNREFUSED)
        await #expect(throws: (any Error).self) { _ = try await OpenAITestServer.start(port: closed.port) }
        #expect(try ClosedPort().port != closed.port)
    }
}
