import Foundation

/// The spending limit of a run (`--max-cost`): what has been spent, what requests in flight
/// may still cost, and whether the next request fits.
///
/// A request's cost is known only once its answer arrives, and several are in flight at once,
/// so each trial reserves its high estimate (its input tokens and every output token it may
/// use) before its request is sent. A reservation that would take spent plus reserved past the
/// limit is refused, and the runner stops the run rather than send it; so however the answers
/// come back, what was spent never passes the limit (as far as the estimates are high
/// enough). When an answer arrives its reservation gives way to the actual cost; when the
/// actual cost cannot be known (no usage reported, a timeout or a connection lost after the
/// request went out, which the server may still bill) the reservation is counted as spent.
///
/// An actor: every worker of the run reserves and settles against the same figures.
package actor CostBudget {
    /// A trial's claim on the budget while its request is being asked; settle or release it
    /// exactly once.
    package struct Reservation: Sendable, Hashable {
        /// USD held back: the request's high estimate.
        package let amount: Double
    }

    /// A reservation that did not fit: the figures at that moment.
    package struct Refusal: Error, Sendable, Hashable {
        package var limit: Double
        /// Spent, plus what requests in flight were holding.
        package var committed: Double
        /// The high estimate of the request that did not fit.
        package var requested: Double

        /// How the run reports this stop.
        package var stopReason: StopReason { .costLimit(limit: limit, spent: committed) }
    }

    /// Sums of floating-point costs that equal the limit on paper can land a rounding error
    /// above it; a billionth of a dollar of slack lets them fit.
    static let tolerance = 1e-9

    /// The most the run may spend, in USD.
    package let limit: Double
    /// USD spent so far: actual costs of answers, and the high estimates of requests whose
    /// cost could not be known.
    package private(set) var spent = 0.0
    /// USD held by requests in flight.
    package private(set) var reserved = 0.0
    private var holders = 0
    /// The refusal that ended the budget, once one did.
    package private(set) var refusal: Refusal?

    package init(limit: Double) {
        self.limit = limit
    }

    /// Holds `amount` for a request about to be sent, or refuses when spent, reserved and this
    /// amount together would pass the limit.
    ///
    /// After the first refusal every reservation is refused (with that first refusal's
    /// figures): the run is stopping, and a smaller request that would still fit must not
    /// start after the stop.
    package func reserve(_ amount: Double) -> Result<Reservation, Refusal> {
        if let refusal { return .failure(refusal) }
        let amount = max(0, amount)
        guard spent + reserved + amount <= limit + Self.tolerance else {
            let refused = Refusal(limit: limit, committed: spent + reserved, requested: amount)
            refusal = refused
            return .failure(refused)
        }
        reserved += amount
        holders += 1
        return .success(Reservation(amount: amount))
    }

    /// The request was answered (or may have been billed): the reservation ends and `cost`
    /// is spent; `nil` when the cost is unknown, which spends the whole reservation.
    package func settle(_ reservation: Reservation, cost: Double?) {
        end(reservation)
        spent += max(0, cost ?? reservation.amount)
    }

    /// Nothing was billed (the request was never sent, or the server refused it with an HTTP
    /// error): the reservation ends without spending.
    package func release(_ reservation: Reservation) {
        end(reservation)
    }

    private func end(_ reservation: Reservation) {
        holders -= 1
        precondition(holders >= 0, "CostBudget: a reservation was settled or released twice")
        // With nothing in flight, nothing is reserved: no rounding residue is carried on.
        reserved = holders == 0 ? 0 : max(0, reserved - reservation.amount)
    }
}
