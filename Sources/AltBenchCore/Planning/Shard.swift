import Foundation

/// `--shard K/N`: the K-th of N deterministic shares of a run's trials.
///
/// A trial belongs to a share by the SHA-256 of its cache key (the trial key), so every
/// machine that plans the same run picks the same trials, whatever order it planned them
/// in, and trials that send the same request (and so share one answer) stay together. A
/// trial without a request (an item that cannot be sent) goes by its coordinates instead.
package struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 1-based: `--shard 1/4` … `--shard 4/4`.
    package var index: Int
    package var count: Int

    /// The most shares a run may be split into.
    package static let maxCount = 1_000

    package init(index: Int, count: Int) throws {
        guard count >= 1, count <= Self.maxCount else {
            throw AltBenchError.invalidSetting(
                name: "--shard", message: "needs 1 to \(Self.maxCount) shares, not \(count): give K/N, such as 2/4.")
        }
        guard index >= 1, index <= count else {
            throw AltBenchError.invalidSetting(
                name: "--shard", message: "K must be 1 to \(count) in K/\(count), not \(index): shards are numbered from 1.")
        }
        self.index = index
        self.count = count
    }

    /// Reads `K/N`, such as `2/4`.
    package init(parsing text: String) throws {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw AltBenchError.invalidSetting(
                name: "--shard", message: "'\(text)' is not K/N: give this job's share and the number of shares, such as 2/4.")
        }
        try self.init(index: index, count: count)
    }

    package var description: String { "\(index)/\(count)" }

    /// Whether `trial` is in this share.
    package func includes(_ trial: Trial) -> Bool {
        Self.share(of: trial, count: count) == index
    }

    /// The share (1-based) of `count` that `trial` belongs to.
    package static func share(of trial: Trial, count: Int) -> Int {
        let identity = trial.key ?? [
            "no-request", trial.variant.name, trial.item.id, trial.maxTokens.map(String.init) ?? "-",
            String(trial.repeatIndex),
        ].joined(separator: "\u{0}")
        let digest = Hashing.sha256Hex(identity)
        // The first 64 bits of the digest, read as a number, spread keys evenly over the shares.
        let value = UInt64(digest.prefix(16), radix: 16) ?? 0
        return Int(value % UInt64(count)) + 1
    }

    /// As stored in a run's settings (`settings.shard`), with the whole plan's size.
    package func recorded(plannedTotal: Int) -> JSONValue {
        .object(["index": .int(index), "count": .int(count), "planned_total": .int(plannedTotal)])
    }
}
