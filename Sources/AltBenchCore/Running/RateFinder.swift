import Foundation

/// The rate a server sustains, measured from its own 429s, for servers whose headers do not
/// tell it (none at all, a per-minute limit beside a per-second bucket, a proxy's or Azure's
/// own shapes).
///
/// A 429 means the server's bucket was empty when that request arrived. Between two such
/// moments the server took exactly what it refilled, so the requests it admitted between the
/// first 429 and the latest, over the time between them, bound its rate from above:
/// `(admitted + 1) / elapsed` (the `+ 1` covers a bucket that was not quite empty). The
/// bound tightens as the run goes on, whatever the pace in between. Before a second 429 far
/// enough from the first, the estimate is what the server admitted in the second before the
/// first 429 (or less, when the headers imply a lower rate).
///
/// The gate paces requests at ``margin`` of the estimate, so that the server's bucket gains a
/// little slack that absorbs jitter in arrival times; the estimate grows by ``growth`` per
/// second between 429s, so a run that paces below the server's rate finds out, and each 429
/// sets it back to the measured bound.
struct RateFinder: Sendable, Hashable {
    /// Pace at this share of the estimate.
    static let margin = 0.95
    /// The estimate's growth per second between 429s.
    static let growth = 0.02
    /// The shortest time between the first 429 and a later one for the bound to be used.
    static let shortestSpan = 0.5

    /// When the first 429's request was let go.
    private(set) var anchor: Duration
    /// The number of the permit that got the first 429.
    let anchorPermit: Int
    /// Requests granted after the anchor that the server took (answered, or failed other than
    /// by a 429).
    private(set) var admitted = 0
    /// The estimate at `estimatedAt`, in requests per second.
    private(set) var estimate: Double
    private(set) var estimatedAt: Duration

    /// A finder started by the first 429 after the server admitted something, for `permit` let
    /// go at `grantedAt`: `recent` (at least 1) is what the server admitted in the second
    /// before, `impliedRate` what the headers imply.
    init(permit: Int, grantedAt: Duration, recent: Int, impliedRate: Double?, now: Duration) {
        anchor = grantedAt
        anchorPermit = permit
        var first = Double(recent)
        if let impliedRate, impliedRate > 0 { first = min(first, impliedRate) }
        estimate = first
        estimatedAt = now
    }

    /// The estimate at `now`, grown since the last 429.
    func rate(at now: Duration) -> Double {
        estimate * (1 + Self.growth * max(0, (now - estimatedAt).secondsValue))
    }

    /// The pace the gate keeps at `now`.
    func pace(at now: Duration) -> Double {
        max(0.01, rate(at: now) * Self.margin)
    }

    /// The server took a request granted after the anchor.
    mutating func admit() { admitted += 1 }

    /// A later 429, for a request let go at `grantedAt`, with `pending` requests granted after
    /// the anchor and before it still in flight (the server has taken them too, as far as is
    /// known): the bound replaces the estimate once the span is long enough; before that the
    /// estimate can only fall.
    mutating func rateLimited(grantedAt: Duration, pending: Int, now: Duration) {
        let span = (grantedAt - anchor).secondsValue
        guard span > 0 else { return }
        let bound = Double(admitted + pending + 1) / span
        if span >= Self.shortestSpan {
            estimate = bound
        } else {
            estimate = min(rate(at: now), bound)
        }
        estimatedAt = now
    }
}
