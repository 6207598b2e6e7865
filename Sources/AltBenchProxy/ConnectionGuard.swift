import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// How long a client connection may take over each part of a request, so that a slow or
/// silent client cannot hold a connection (and its memory) for ever.
struct ConnectionLimits: Sendable {
    /// From the connection's start, or the first byte after an idle keep-alive, until the
    /// request's head (request line and headers) is complete.
    var headerTimeout: TimeAmount
    /// From the moment the proxy reads a body until its last byte.
    var bodyTimeout: TimeAmount
    /// From the end of an answer until the next request's first byte.
    var idleTimeout: TimeAmount

    init(_ configuration: ProxyConfiguration) {
        headerTimeout = TimeAmount(configuration.headerTimeout)
        bodyTimeout = TimeAmount(configuration.bodyTimeout)
        idleTimeout = TimeAmount(configuration.idleTimeout)
    }
}

/// Watches one client connection: enforces the header, body and idle deadlines, and reads
/// from the socket only what the request in hand needs.
///
/// Two handlers share it. ``RawSide`` sits first in the pipeline, where the socket's bytes
/// arrive and where read requests leave: it notices a keep-alive connection wake up, and holds
/// reads back while they are paused. ``MessageSide`` sits right after the HTTP/1.1 decoder: it
/// sees each request's head and end, and each answer's head and end.
///
/// Reads are paused from a request's head until the proxy asks for its body
/// (``BodyWanted``, sent once the cheap checks have passed), and from the request's end until
/// its answer is written: a refused request's body is not read, and a client cannot send the
/// next request ahead. An answer to a request whose body was not read to its end says
/// `Connection: close` and closes the connection, rather than reading the rest of the body to
/// reach the next request. (Bytes that arrived in the same read as the head, at most one read
/// buffer, are read all the same: the socket is read one buffer per wake-up.)
final class ConnectionGuard {
    /// Sent down the pipeline by the proxy when it is ready to read the current request's body.
    struct BodyWanted: Sendable {}

    private enum Deadline { case none, header, body, idle }

    let limits: ConnectionLimits
    private var headsIn = 0
    private var endsIn = 0
    private var answersOut = 0
    /// The current request's body was asked for.
    private var bodyWanted = false
    /// No request is in hand and bytes of the next one's head are awaited: true from the
    /// connection's start, or once bytes arrive on an idle connection.
    private var awaitingHead = true
    private var closeAfterAnswer = false
    private var readsPaused = false
    private var heldRead = false
    private var deadline = Deadline.none
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    private var stopped = false

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    /// A request is in hand: its head arrived and its answer has not been written.
    private var requestInHand: Bool { headsIn > answersOut }
    /// The request in hand has all arrived.
    private var requestComplete: Bool { endsIn > answersOut }

    // MARK: Events

    fileprivate func attach(_ context: ChannelHandlerContext) {
        self.context = context
    }

    fileprivate func started() {
        guard !stopped, deadline == .none, !requestInHand else { return }
        update()
    }

    fileprivate func stop() {
        stopped = true
        timer?.cancel()
        timer = nil
        context = nil
    }

    fileprivate func bytesArrived() {
        if !requestInHand, !awaitingHead {
            awaitingHead = true
            update()
        }
    }

    fileprivate func headArrived() {
        headsIn += 1
        awaitingHead = false
        update()
    }

    fileprivate func endArrived() {
        endsIn += 1
        update()
    }

    fileprivate func bodyAskedFor() {
        guard requestInHand, !requestComplete else { return }
        bodyWanted = true
        update()
    }

    /// Whether the answer about to start must close the connection: its request's body has not
    /// all arrived (reading on would read it), there is no request (a parse error), or the
    /// answer says so itself.
    fileprivate func answerStarts(closing: Bool) -> Bool {
        if closing || !requestInHand || !requestComplete { closeAfterAnswer = true }
        return closeAfterAnswer
    }

    /// The answer was written; returns whether to close the connection now.
    fileprivate func answerEnded() -> Bool {
        if requestInHand { answersOut += 1 }
        bodyWanted = false
        if closeAfterAnswer {
            cancelTimer()
            return true
        }
        update()
        return false
    }

    /// Reads go on unless paused; a paused read is held and issued when reads resume.
    fileprivate func shouldRead() -> Bool {
        if readsPaused {
            heldRead = true
            return false
        }
        return true
    }

    // MARK: State

    /// Sets the deadline and whether reads are paused from the counts.
    private func update() {
        guard !stopped else { return }
        if requestInHand {
            if requestComplete || !bodyWanted {
                // Answering, or waiting for the proxy to want the body: the proxy's time.
                pauseReads()
                setDeadline(.none)
            } else {
                resumeReads()
                setDeadline(.body)
            }
        } else {
            resumeReads()
            setDeadline(awaitingHead ? .header : .idle)
        }
    }

    private func pauseReads() {
        readsPaused = true
    }

    private func resumeReads() {
        readsPaused = false
        if heldRead, let context {
            heldRead = false
            context.read()
        }
    }

    private func setDeadline(_ next: Deadline) {
        guard next != deadline else { return }
        cancelTimer()
        deadline = next
        let delay: TimeAmount
        switch next {
        case .none: return
        case .header: delay = limits.headerTimeout
        case .body: delay = limits.bodyTimeout
        case .idle: delay = limits.idleTimeout
        }
        guard let context else { return }
        timer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: delay) { [self] in
            timer = nil
            // The client was too slow (or idle too long): the connection is closed without
            // an answer, as a reverse proxy would.
            self.context?.close(promise: nil)
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
        deadline = .none
    }

    // MARK: Handlers

    /// First in the pipeline: the socket's bytes and read requests.
    final class RawSide: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        typealias OutboundIn = IOData
        typealias OutboundOut = IOData

        let connection: ConnectionGuard

        init(_ connection: ConnectionGuard) {
            self.connection = connection
        }

        func handlerAdded(context: ChannelHandlerContext) {
            // Read at most 1 KiB first (NIO's default is 2 KiB), growing as a body keeps the
            // reads full: a request refused on its head (or on a /auth_token body past 1 KiB)
            // costs the proxy one small read, while a large signed body soon reads in 64 KiB.
            try? context.channel.syncOptions?.setOption(
                ChannelOptions.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 1024, maximum: 65536))
            connection.attach(context)
            if context.channel.isActive { connection.started() }
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            connection.stop()
        }

        func channelActive(context: ChannelHandlerContext) {
            connection.started()
            context.fireChannelActive()
        }

        func channelInactive(context: ChannelHandlerContext) {
            connection.stop()
            context.fireChannelInactive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            connection.bytesArrived()
            context.fireChannelRead(data)
        }

        func read(context: ChannelHandlerContext) {
            if connection.shouldRead() { context.read() }
        }

        func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
            if event is BodyWanted {
                connection.bodyAskedFor()
                promise?.succeed()
            } else {
                context.triggerUserOutboundEvent(event, promise: promise)
            }
        }
    }

    /// Right after the HTTP/1.1 decoder: requests' heads and ends, answers' heads and ends.
    final class MessageSide: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias InboundOut = HTTPServerRequestPart
        typealias OutboundIn = HTTPServerResponsePart
        typealias OutboundOut = HTTPServerResponsePart

        let connection: ConnectionGuard

        init(_ connection: ConnectionGuard) {
            self.connection = connection
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head: connection.headArrived()
            case .body: break
            case .end: connection.endArrived()
            }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            switch unwrapOutboundIn(data) {
            case .head(var head):
                let closing = head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
                if connection.answerStarts(closing: closing), !closing {
                    head.headers.replaceOrAdd(name: "Connection", value: "close")
                    context.write(wrapOutboundOut(.head(head)), promise: promise)
                } else {
                    context.write(data, promise: promise)
                }
            case .body:
                context.write(data, promise: promise)
            case .end:
                guard connection.answerEnded() else {
                    context.write(data, promise: promise)
                    return
                }
                let written = context.eventLoop.makePromise(of: Void.self)
                context.writeAndFlush(data, promise: written)
                written.futureResult.assumeIsolated().whenComplete { result in
                    promise?.completeWith(result)
                    context.close(promise: nil)
                }
            }
        }
    }
}

/// Hummingbird's HTTP/1.1 child channel with a ``ConnectionGuard`` on each connection, which
/// reads the socket one buffer per wake-up.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let limits: ConnectionLimits

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.syncOptions?.setOption(.maxMessagesPerRead, value: 1)
            try channel.pipeline.syncOperations.addHandler(
                ConnectionGuard.RawSide(ConnectionGuard(limits: limits)), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let raw = try operations.handler(type: ConnectionGuard.RawSide.self)
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(ConnectionGuard.MessageSide(raw.connection), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
