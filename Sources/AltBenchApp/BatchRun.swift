import AltBenchCore
import AltBenchOpenAI
import AltBenchStore
import Foundation

/// Sends requests through the provider's Batch API: half the price, its own rate-limit pool,
/// answers within 24 hours. One orchestration for the two kinds of request altbench sends, a
/// run's trials (`altbench run --batch`, ``TrialBatchSink``) and a judging pass's calls
/// (`--judge --batch`, `altbench judge --batch`, ``JudgeBatchSink``): the sink says what a
/// request is and where its answer goes.
///
/// The steps, each durable before the next starts:
/// 1. Requests the store can answer are recorded from it; the rest are grouped by cache key
///    (one request per key, as a live run sends identical requests once).
/// 2. Requests go into input files (``BatchInputWriter``: the line and byte limits, one model
///    per file), one line at a time; a completed file and its requests are recorded before it
///    is uploaded.
/// 3. Each file is uploaded (its id recorded the moment the server returns it), then a batch
///    is created from it (its id recorded the same way). A file whose upload was cut off is
///    found again on the server by its name and size; a batch whose create was cut off, by
///    its metadata.
/// 4. Batches are polled with a growing interval until each ends; each one that ends has its
///    output and error files read and every line recorded as a live answer would be (same
///    rows, scores and cache), then it is marked imported.
/// 5. Requests that expired unanswered go into a new file, up to `retries` times.
///
/// A pass killed at any point continues with the sink's resume command (`altbench run
/// --resume RUN`, `altbench judge RUN --batch`): what was written, uploaded, created or
/// imported is not done again.
struct BatchRun<Sink: BatchSink> {
    let client: BatchClient
    let store: ResultStore
    /// What the requests are and where their answers are recorded.
    let sink: Sink
    let runID: String
    /// Where input and output files are written (`results/batches/RUN`).
    let folder: URL
    let limits: BatchLimits
    /// How many times requests that expired are sent again in a new batch.
    let retries: Int
    /// The longest wait between two polls; the first is shorter.
    let longestPoll: Duration
    let console: Console
    let control: RunControl
    let clock: any RunClock
    let deadline: Duration?
    let redactor: Redactor
    /// `altbench batches cancel`: cancel every batch of the run still queued or running,
    /// import what they finished, and send nothing new.
    var cancelling = false
    /// Set once the server has answered a request of this invocation: from then on a refused
    /// connection is a lost server, retried, rather than a wrong address.
    private let reached = ReachedFlag()

    private final class ReachedFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }

    private var purpose: String { sink.purpose }

    struct Outcome {
        var progress: RunProgress
        var stopReason: StopReason?
        /// Requests sent through the Batch API in this invocation.
        var sent: Int
    }

    /// What one pass keeps while it works.
    private final class Ledger: @unchecked Sendable {
        /// The pass's units (one array, shared with the caller's: a run of 100,000 keeps one copy).
        var units: [Sink.Unit] = []
        /// The units still to record, by cache key (the custom id): their places in ``units``.
        var waiting: [String: [Int]] = [:]

        /// The units waiting for `key`'s answer, no longer waiting.
        func take(_ key: String) -> [Sink.Unit] { (waiting.removeValue(forKey: key) ?? []).map { units[$0] } }

        /// The first unit waiting for `key`'s answer (the one whose request is sent).
        func first(_ key: String) -> Sink.Unit? { waiting[key]?.first.map { units[$0] } }
        var done = 0
        var failed = 0
        var cached = 0
        var sent = 0
        /// The progress line last printed: a poll that changed nothing prints nothing.
        var lastProgress = ""
        /// Results not yet written: recorded a few hundred to a transaction (``flush(_:)``).
        var unwritten: [Sink.Result] = []
    }

    /// Results written per transaction: one each would make importing 100,000 lines spend
    /// most of its time committing.
    static var resultsPerWrite: Int { 256 }

    func run(_ units: [Sink.Unit]) async throws -> Outcome {
        let start = clock.now
        let ledger = Ledger()
        let total = units.count
        func progress() -> RunProgress {
            RunProgress(done: ledger.done, total: total, failed: ledger.failed, cached: ledger.cached, elapsed: clock.now - start)
        }
        // 1. What needs no request.
        ledger.units = units
        var order: [String] = []
        for (index, unit) in units.enumerated() {
            guard let key = sink.key(of: unit), sink.request(of: unit) != nil else {
                try await record(unit, .failed(sink.unsendable(unit)), ledger: ledger)
                continue
            }
            if sink.useCache, let answer = try await sink.cachedAnswer(forKey: key) {
                try await record(unit, .answered(answer, cached: true), ledger: ledger)
                continue
            }
            if ledger.waiting[key] == nil { order.append(key) }
            ledger.waiting[key, default: []].append(index)
        }
        try await flush(ledger)
        guard !ledger.waiting.isEmpty else { return Outcome(progress: progress(), stopReason: nil, sent: 0) }

        do {
            // 2. Input files for requests no unfinished batch holds.
            var inputs = try await store.batchState(runID: runID, purpose: purpose)
            if cancelling {
                try await cancelAll(&inputs)
            } else {
                let covered = Set(inputs.filter(\.isUnfinished).flatMap(\.customIDs))
                let uncovered = order.filter { !covered.contains($0) }
                inputs += try await write(keys: uncovered, generation: 0, after: inputs, ledger: ledger)
            }
            // 3–5.
            let stop = try await drive(inputs, ledger: ledger, start: start)
            try await flush(ledger)
            return Outcome(progress: progress(), stopReason: stop, sent: ledger.sent)
        } catch is CancellationError where control.isStopping {
            try await flush(ledger)
            return Outcome(progress: progress(), stopReason: control.stopReason, sent: ledger.sent)
        } catch let failure as ModelFailure {
            try await flush(ledger)
            var stop = failure
            stop.stopsRun = true
            return Outcome(progress: progress(), stopReason: .failure(stop), sent: ledger.sent)
        }
    }

    /// Asks the server to cancel every batch not yet ended, and forgets files that never got
    /// one: what is not answered stays unrecorded for a later run.
    private func cancelAll(_ inputs: inout [StoredBatchInput]) async throws {
        for index in inputs.indices {
            guard let job = inputs[index].jobs.last else {
                inputs[index].jobs = []
                continue
            }
            guard job.importedAt == nil, !BatchStatus(parsing: job.status).isTerminal else { continue }
            var updated = Self.job(try await client.cancelBatch(id: job.batchID), sequence: job.sequence, checked: Date())
            updated.createdAt = job.createdAt
            try await store.updateBatchJob(updated)
            inputs[index].jobs[inputs[index].jobs.count - 1] = updated
            console.err("altbench: asked the server to cancel batch \(job.batchID) (\(updated.status)).\n")
        }
        // Files with no batch (or waiting for the queue) get none now.
        inputs.removeAll { $0.jobs.isEmpty || $0.needsBatch }
    }

    // MARK: Writing and sending

    /// Writes `keys` (each once, in order) into new input files after the run's existing ones,
    /// records each file as it completes, and returns them.
    private func write(
        keys: [String], generation: Int, after existing: [StoredBatchInput], ledger: Ledger
    ) async throws -> [StoredBatchInput] {
        var seen: Set<String> = []
        let unique = keys.filter { seen.insert($0).inserted }
        guard !unique.isEmpty else { return [] }
        // One model per file: the requests grouped by model, in plan order within each.
        var models: [String] = []
        var byModel: [String: [String]] = [:]
        for key in unique {
            guard let model = ledger.first(key).flatMap(sink.request(of:))?.model else { continue }
            if byModel[model] == nil { models.append(model) }
            byModel[model, default: []].append(key)
        }
        let writer = try BatchInputWriter(
            folder: folder, limits: limits, runID: runID, purpose: purpose,
            firstSequence: (existing.map(\.sequence).max() ?? 0) + 1)
        let images = ImageURLCache()
        var written: [StoredBatchInput] = []
        func keep(_ file: BatchInputFile) async throws {
            try await store.recordBatchInput(runID: runID, purpose: purpose, file: file, generation: generation)
            written.append(
                StoredBatchInput(
                    purpose: purpose, sequence: file.sequence, generation: generation, model: file.model,
                    lines: file.customIDs.count, bytes: file.bytes, uploadName: file.url.lastPathComponent, fileID: nil,
                    customIDs: file.customIDs, jobs: []))
        }
        for model in models {
            for key in byModel[model]! {
                // A request that cannot go into a file (its image unreadable, or too large at
                // this limit) fails with the reason; the others go on.
                var failure: ModelFailure?
                do {
                    let line = try line(for: key, ledger: ledger, images: images)
                    if let completed = try writer.add(customID: key, model: model, line: line) { try await keep(completed) }
                } catch let tooLarge as BatchLineTooLarge {
                    failure = ModelFailure(kind: .image, message: tooLarge.description, retryable: false)
                } catch let unreadable as ModelFailure {
                    failure = unreadable
                }
                if let failure {
                    for unit in ledger.take(key) {
                        try await record(unit, .failed(failure), ledger: ledger)
                    }
                }
            }
        }
        if let last = try writer.finishCurrent() { try await keep(last) }
        try await flush(ledger)
        return written
    }

    /// The input line for a request: its live body, byte for byte.
    private func line(for key: String, ledger: Ledger, images: ImageURLCache) throws -> [UInt8] {
        let unit = ledger.first(key)!
        let request = sink.request(of: unit)!
        let imageURL: String
        do {
            imageURL = try images.urlString(for: request.image, identity: request.imageIdentity)
        } catch {
            throw ModelFailure(
                kind: .image,
                message: "could not read the image of \(sink.imageOwner(unit)) to write it into a batch input file: \(error.localizedDescription) Check that the file still exists and is readable.",
                retryable: false)
        }
        return BatchLine.encode(customID: key, url: client.chatEndpoint, body: request.body(imageURL: imageURL).canonicalBytes)
    }

    /// The file's content again, from its recorded requests (for an upload that must be
    /// repeated after the local copy was removed).
    private func rewrite(_ input: StoredBatchInput, ledger: Ledger) throws -> URL {
        let url = folder.appendingPathComponent(input.uploadName)
        if FileManager.default.fileExists(atPath: url.path) { return url }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let images = ImageURLCache()
        for key in input.customIDs {
            guard let unit = ledger.first(key), let request = sink.request(of: unit) else { continue }
            let imageURL = try images.urlString(for: request.image, identity: request.imageIdentity)
            try handle.write(
                contentsOf: BatchLine.encode(customID: key, url: client.chatEndpoint, body: request.body(imageURL: imageURL).canonicalBytes))
        }
        try handle.synchronize()
        return url
    }

    /// Uploads and creates what is missing, then polls every unfinished batch until each has
    /// ended and been imported, resubmitting expired requests; the reason it stopped early.
    private func drive(_ initial: [StoredBatchInput], ledger: Ledger, start: Duration) async throws -> StopReason? {
        var inputs = initial
        var wait = min(Duration.seconds(2), longestPoll)
        while true {
            if let reason = stopReason(start: start) { return reason }
            // Upload and create what is missing, in order; a file refused for the enqueued token
            // limit only once none of the run's batches is queued.
            let queued = inputs.contains { $0.jobs.last.map { !BatchStatus(parsing: $0.status).isTerminal } == true }
            for index in inputs.indices where inputs[index].needsBatch && !(queued && inputs[index].jobs.last != nil) {
                if let reason = stopReason(start: start) { return reason }
                inputs[index] = try await ensureBatch(inputs[index], ledger: ledger)
            }
            // Ask about each batch that has not ended; import each that has.
            var active = 0
            for index in inputs.indices {
                guard var job = inputs[index].jobs.last, job.importedAt == nil else { continue }
                if !BatchStatus(parsing: job.status).isTerminal {
                    job = try await refresh(job)
                    inputs[index].jobs[inputs[index].jobs.count - 1] = job
                }
                if BatchStatus(parsing: job.status).isTerminal {
                    if job.isEnqueuedTokenLimit {
                        let othersRunning = inputs.indices.contains { other in
                            other != index && inputs[other].jobs.last.map { !BatchStatus(parsing: $0.status).isTerminal } == true
                        }
                        if othersRunning {
                            // The organisation's queue is full of this run's own batches: create
                            // this one again once they have finished.
                            job.message = StoredBatchJob.waitingForQueue + (job.message ?? "")
                            job.importedAt = Date()
                            try await store.updateBatchJob(job)
                            try await store.markBatchImported(job.batchID)
                            inputs[index].jobs[inputs[index].jobs.count - 1] = job
                            console.err(
                                "altbench: batch \(job.batchID) was refused for the enqueued token limit while this run's other batches wait; it is created again once they finish.\n")
                            continue
                        }
                        job.message = (job.message ?? "enqueued token limit reached")
                            + " — nothing else of this run was queued, so one input file holds more tokens than the organisation may enqueue: lower --batch-max-lines (or --batch-max-bytes) so each file is smaller, or wait for other batches of the organisation to finish and run again."
                        inputs[index].jobs[inputs[index].jobs.count - 1] = job
                    }
                    let expired = try await importResults(of: job, input: inputs[index], ledger: ledger)
                    inputs[index].jobs[inputs[index].jobs.count - 1].importedAt = Date()
                    if !expired.isEmpty {
                        if inputs[index].generation < retries {
                            console.err(
                                "altbench: \(expired.count) request\(expired.count == 1 ? "" : "s") of batch \(job.batchID) expired unanswered; sending \(expired.count == 1 ? "it" : "them") again in a new batch (\(inputs[index].generation + 1) of \(retries)).\n")
                            inputs += try await write(
                                keys: expired, generation: inputs[index].generation + 1, after: inputs, ledger: ledger)
                        } else {
                            let failure = ModelFailure(
                                kind: .http,
                                message: "the request expired unanswered in \(retries + 1) batches (the last \(job.batchID)); run again to send it again, or send it live.",
                                code: "batch_expired", retryable: false)
                            for key in expired {
                                for unit in ledger.take(key) {
                                    try await record(unit, .failed(failure), ledger: ledger)
                                }
                            }
                        }
                    }
                } else {
                    active += 1
                }
            }
            try await flush(ledger)
            showProgress(inputs, ledger: ledger)
            if active == 0 && !inputs.contains(where: \.needsBatch) { break }
            guard try await control.sleep(until: clock.now + wait, on: clock) else {
                console.err(
                    "altbench: \(active) batch\(active == 1 ? "" : "es") of run \(runID)\(sink.purpose == BatchPurpose.trials ? "" : " (\(sink.noun))") keep\(active == 1 ? "s" : "") running at the provider; \(sink.resumeCommand(runID: runID)) imports \(active == 1 ? "its" : "their") answers later, `altbench batches cancel \(runID)` cancels \(active == 1 ? "it" : "them").\n")
                return stopReason(start: start)
            }
            wait = min(longestPoll, wait * 3 / 2)
        }
        return nil
    }

    private func stopReason(start: Duration) -> StopReason? {
        if let deadline, clock.now - start >= deadline { control.stop(.deadline(deadline)) }
        return control.isStopping ? control.stopReason : nil
    }

    /// Uploads the input (unless its id is recorded) and creates a batch from it (unless one
    /// is recorded and has not failed for a reason that a new batch would fix).
    private func ensureBatch(_ stored: StoredBatchInput, ledger: Ledger) async throws -> StoredBatchInput {
        var input = stored
        if input.fileID == nil {
            let url = try rewrite(input, ledger: ledger)
            let bytes = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? input.bytes
            // A file uploaded before a kill: the same name and size on the server.
            let found = try? await client.listFiles(purpose: "batch").first { $0.filename == input.uploadName && $0.bytes == bytes }
            let file: BatchFileObject
            if let found {
                file = found
            } else {
                file = try await retrying("uploading \(input.uploadName)") { try await client.uploadFile(url, filename: input.uploadName) }
            }
            try await store.recordBatchFileID(file.id, runID: runID, purpose: purpose, sequence: input.sequence)
            input.fileID = file.id
        }
        let fileID = input.fileID!
        let metadata = ["altbench_run": runID, "altbench_purpose": purpose, "altbench_file": String(input.sequence)]
        // A batch created before a kill: the same input file on the server.
        var created = try? await findBatch(inputFileID: fileID, metadata: metadata, known: Set(input.jobs.map(\.batchID)))
        if created == nil {
            created = try await retrying("creating a batch from \(fileID)") { try await client.createBatch(inputFileID: fileID, metadata: metadata) }
        }
        let job = Self.job(created!, sequence: input.sequence, checked: Date())
        try await store.recordBatchJob(job, runID: runID, purpose: purpose)
        input.jobs.append(job)
        ledger.sent += input.customIDs.count
        // The local copy is no longer needed: the server holds the file.
        try? FileManager.default.removeItem(at: folder.appendingPathComponent(input.uploadName))
        return input
    }

    /// A batch on the server made from `inputFileID` with this run's metadata that the store
    /// does not know yet (its create answered after the run was killed).
    private func findBatch(inputFileID: String, metadata: [String: String], known: Set<String>) async throws -> BatchObject? {
        var after: String?
        for _ in 0..<5 {
            let page = try await client.listBatches(limit: 100, after: after)
            if let found = page.batches.first(where: {
                $0.inputFileID == inputFileID && $0.metadata["altbench_run"] == metadata["altbench_run"]
                    && $0.metadata["altbench_file"] == metadata["altbench_file"]
                    && !known.contains($0.id) && $0.status != .failed && $0.status != .cancelled
            }) {
                return found
            }
            guard page.hasMore, let last = page.batches.last?.id else { return nil }
            after = last
        }
        return nil
    }

    /// What the server says of a batch now; a batch it no longer knows (404) ends as failed.
    private func refresh(_ stored: StoredBatchJob) async throws -> StoredBatchJob {
        var job: StoredBatchJob
        do {
            job = Self.job(try await client.batch(id: stored.batchID), sequence: stored.sequence, checked: Date())
        } catch let failure as ModelFailure where failure.retryable {
            // A busy or unreachable moment: look again at the next poll.
            console.err("altbench: could not look at batch \(stored.batchID) (\(failure.message)); looking again later.\n")
            return stored
        } catch let failure as ModelFailure where failure.status == 404 {
            job = stored
            job.status = BatchStatus.failed.rawValue
            job.checkedAt = Date()
            job.message = "the server no longer knows batch \(stored.batchID) (404): its requests were not answered. Run again to send them again."
        }
        job.createdAt = stored.createdAt
        try await store.updateBatchJob(job)
        return job
    }

    static func job(_ batch: BatchObject, sequence: Int, checked: Date) -> StoredBatchJob {
        var message: String?
        if !batch.errors.isEmpty {
            message = batch.errors.prefix(3).map { error in
                (error.line.map { "line \($0): " } ?? "") + (error.code.map { "\($0): " } ?? "") + error.message
            }.joined(separator: "; ") + (batch.errors.count > 3 ? "; and \(batch.errors.count - 3) more" : "")
        }
        return StoredBatchJob(
            batchID: batch.id, sequence: sequence, status: batch.status.rawValue, total: batch.requestCounts?.total,
            completed: batch.requestCounts?.completed, failed: batch.requestCounts?.failed,
            outputFileID: batch.outputFileID, errorFileID: batch.errorFileID, createdAt: batch.createdAt ?? checked,
            expiresAt: batch.expiresAt, checkedAt: checked, message: message)
    }

    /// `body`, asked again after a retryable failure (a 429, a 5xx, a timeout) up to four
    /// times, waiting as the server asked or 2, 4, 8, 16 s; a stop ends the wait.
    private func retrying<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                let value = try await body()
                reached.set()
                return value
            } catch let failure as ModelFailure where failure.cannotConnect && !reached.isSet {
                // Nothing of this run reached the server yet: a wrong URL or a server that is
                // not running, which waiting does not fix. Stop now, as a live run does.
                throw failure
            } catch let failure as ModelFailure where failure.retryable && attempt < 4 {
                attempt += 1
                let wait = min(failure.retryAfter ?? .seconds(1 << attempt), .seconds(60))
                console.err("altbench: \(what) failed (\(failure.message)); trying again in \(DurationText.format(wait)).\n")
                guard try await control.sleep(until: clock.now + wait, on: clock) else { throw CancellationError() }
            }
        }
    }

    // MARK: Importing

    /// Reads an ended batch's output and error files and records every line for a request
    /// still waiting; returns the keys that expired unanswered (to send again). Requests the batch
    /// left unanswered for another reason fail with it.
    private func importResults(of job: StoredBatchJob, input: StoredBatchInput, ledger: Ledger) async throws -> [String] {
        var answered: Set<String> = []
        var expired: [String] = []
        let started = ContinuousClock.now
        var lines = 0
        for fileID in [job.outputFileID, job.errorFileID].compactMap({ $0 }) where !fileID.isEmpty {
            let url = folder.appendingPathComponent("\(job.batchID)-\(fileID).jsonl")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            _ = try await retrying("downloading \(fileID)") { try await client.downloadContent(fileID: fileID, to: url) }
            try await forEachLine(of: url) { data in
                lines += 1
                let line: BatchOutputLine
                do {
                    line = try BatchOutputLine.parse(data)
                } catch {
                    console.err("warning: a line of batch \(job.batchID)'s file \(fileID) could not be read (\(error)); its request counts as unanswered.\n")
                    return
                }
                answered.insert(line.customID)
                if line.error?.code == "batch_expired" {
                    expired.append(line.customID)
                    return
                }
                guard ledger.waiting[line.customID] != nil else { return }
                let units = ledger.take(line.customID)
                let outcome = BatchResults.outcome(of: line, batchID: job.batchID, redactor: redactor)
                for (index, unit) in units.enumerated() {
                    switch outcome {
                    case .answered(var answer, _):
                        let request = sink.request(of: unit)
                        answer.tokenField = request?.maxTokens == nil ? nil : request?.tokenField.rawValue
                        // The others sharing the key take the answer as from the store (sent once, billed once).
                        try await record(unit, .answered(answer, cached: index > 0), ledger: ledger, batchID: job.batchID)
                    case .failed:
                        try await record(unit, outcome, ledger: ledger, batchID: job.batchID)
                    }
                }
            }
            try? FileManager.default.removeItem(at: url)
        }
        let status = BatchStatus(parsing: job.status)
        let missing = input.customIDs.filter { !answered.contains($0) && ledger.waiting[$0] != nil }
        switch status {
        case .expired:
            // Requests the batch never reached are in no file: they expired too.
            expired += missing
        case .cancelled:
            // Left unrecorded, so a later run or --resume asks them again.
            for key in missing { ledger.waiting.removeValue(forKey: key) }
            if !cancelling && !missing.isEmpty {
                // Not by this run: someone cancelled it at the provider.
                console.err(
                    "altbench: batch \(job.batchID) was cancelled at the provider; its \(missing.count) unanswered request\(missing.count == 1 ? " stays" : "s stay") unrecorded, and \(sink.resumeCommand(runID: runID)) sends \(missing.count == 1 ? "it" : "them") again.\n")
            }
        default:
            let reason: String
            if status == .failed {
                reason = "batch \(job.batchID) failed: \(job.message ?? "the server gave no reason")."
            } else {
                reason = "batch \(job.batchID) ended \(job.status) without an answer for this request."
            }
            let failure = ModelFailure(kind: .http, message: reason, retryable: false)
            for key in missing {
                for unit in ledger.take(key) {
                    try await record(unit, .failed(failure), ledger: ledger, batchID: job.batchID)
                }
            }
        }
        // Every answer of the batch is written before the batch counts as imported.
        try await flush(ledger)
        try await store.markBatchImported(job.batchID)
        if lines > 0 {
            let seconds = (ContinuousClock.now - started).secondsValue
            console.err("altbench: batch \(job.batchID): \(lines) lines imported in \(String(format: "%.1f", seconds)) s\n")
        }
        return expired.filter { ledger.waiting[$0] != nil }
    }

    /// Calls `body` with each line of the file, reading a block at a time; each block is
    /// scanned once and only its unfinished last line is carried to the next.
    private func forEachLine(of url: URL, _ body: (Data) async throws -> Void) async throws {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let blank = { (line: Data) in line.allSatisfy { $0 == 0x20 || $0 == 0x0D } }
        var pending = Data()
        while let block = try handle.read(upToCount: 1 << 20), !block.isEmpty {
            pending.append(block)
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                let line = pending[start..<newline]
                if !blank(line) { try await body(Data(line)) }
                start = pending.index(after: newline)
            }
            pending = Data(pending[start...])
        }
        if !blank(pending) { try await body(pending) }
    }

    private func record(_ unit: Sink.Unit, _ outcome: TrialOutcome, ledger: Ledger, batchID: String? = nil) async throws {
        ledger.unwritten.append(
            sink.result(
                unit, outcome, batchID: batchID,
                costUSD: Self.batchCost(of: outcome, model: sink.request(of: unit)?.model, prices: sink.prices)))
        if ledger.unwritten.count >= Self.resultsPerWrite { try await flush(ledger) }
        ledger.done += 1
        if outcome.failure != nil { ledger.failed += 1 }
        if outcome.cached { ledger.cached += 1 }
    }

    /// Writes the results recorded so far, in order, in one transaction.
    private func flush(_ ledger: Ledger) async throws {
        guard !ledger.unwritten.isEmpty else { return }
        let results = ledger.unwritten
        ledger.unwritten.removeAll(keepingCapacity: true)
        try await sink.record(results)
    }

    /// A batch answer's cost at the batch price; 0 for one from the store or a failure (an
    /// error line is not billed); `nil` when the model or its usage has no price.
    static func batchCost(of outcome: TrialOutcome, model: String?, prices: PriceTable?) -> Double? {
        guard case .answered(let answer, cached: false) = outcome else { return 0 }
        guard let model, let table = prices,
            let price = table.price(forModel: model)?.price ?? answer.responseModel.flatMap({ table.price(forModel: $0)?.price }),
            let batch = table.batchPrice(of: price), let prompt = answer.promptTokens, let completion = answer.completionTokens
        else { return nil }
        return batch.cost(TokenUsage(promptTokens: prompt, cachedTokens: answer.cachedTokens ?? 0, completionTokens: completion))
    }

    private func showProgress(_ inputs: [StoredBatchInput], ledger: Ledger) {
        let line = progressLine(inputs, ledger: ledger)
        guard line != ledger.lastProgress else { return }
        ledger.lastProgress = line
        console.err(line)
    }

    private func progressLine(_ inputs: [StoredBatchInput], ledger: Ledger) -> String {
        let jobs = inputs.compactMap(\.jobs.last)
        var states: [String: Int] = [:]
        for job in jobs where job.importedAt == nil { states[job.status, default: 0] += 1 }
        let requests = jobs.reduce(into: (done: 0, total: 0)) { sum, job in
            sum.total += job.total ?? 0
            sum.done += (job.completed ?? 0) + (job.failed ?? 0)
        }
        let shown = states.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        let what = sink.purpose == BatchPurpose.trials ? "batches" : "\(sink.purpose) batches"
        return (
            "altbench: \(what): \(jobs.count - states.values.reduce(0, +)) of \(jobs.count) done\(shown.isEmpty ? "" : " (\(shown))"); requests \(requests.done)/\(requests.total) answered by the server; \(ledger.done) \(sink.noun) recorded, \(ledger.failed) failed\n")
    }
}

extension StoredBatchInput {
    /// Whether the file still needs a batch: none created yet, or the last one failed before
    /// it ran (a refusal such as the enqueued token limit) and was not imported.
    var needsBatch: Bool {
        guard let last = jobs.last else { return true }
        return last.importedAt != nil && last.message?.hasPrefix(StoredBatchJob.waitingForQueue) == true
    }

    /// Whether a batch for this file may still answer its requests: not yet created, its last
    /// batch not yet imported, or waiting to be created again.
    var isUnfinished: Bool {
        guard let last = jobs.last else { return true }
        return last.importedAt == nil || needsBatch
    }
}

extension StoredBatchJob {
    /// What a batch refused for the enqueued token limit, while others of the run were queued,
    /// has its message start with: its file gets a new batch once they finish.
    static let waitingForQueue = "waiting for the queue: "

    /// Whether the server refused the batch for the organisation's enqueued token limit.
    var isEnqueuedTokenLimit: Bool {
        guard BatchStatus(parsing: status) == .failed, let message else { return false }
        let lowered = message.lowercased()
        return lowered.contains("token_limit_exceeded") || lowered.contains("enqueued token limit")
    }
}
