import Foundation
import Testing

@testable import AltBenchCore

@Suite("Cost budget")
struct CostBudgetTests {
    @Test func reservesWhileTheLimitHoldsAndRefusesTheRequestThatWouldPassIt() async throws {
        let budget = CostBudget(limit: 1.0)
        let first = try await budget.reserve(0.4).get()
        let second = try await budget.reserve(0.5).get()
        #expect(await budget.reserved == 0.9)
        guard case .failure(let refusal) = await budget.reserve(0.2) else {
            Issue.record("0.4 + 0.5 + 0.2 passes 1.0 and must be refused")
            return
        }
        #expect(refusal == CostBudget.Refusal(limit: 1.0, committed: 0.9, requested: 0.2))
        #expect(refusal.stopReason == .costLimit(limit: 1.0, spent: 0.9))
        await budget.settle(first, cost: 0.1)
        await budget.release(second)
        #expect(await budget.spent == 0.1)
        #expect(await budget.reserved == 0)
    }

    @Test func afterARefusalEvenASmallReservationIsRefused() async throws {
        let budget = CostBudget(limit: 1.0)
        let held = try await budget.reserve(0.6).get()
        guard case .failure(let refusal) = await budget.reserve(0.5) else {
            Issue.record("0.6 + 0.5 passes 1.0")
            return
        }
        // 0.6 + 0.1 would fit, but the run is stopping: nothing starts after the stop.
        #expect(await budget.reserve(0.1) == .failure(refusal))
        await budget.release(held)
        #expect(await budget.reserve(0.1) == .failure(refusal))
        #expect(await budget.refusal == refusal)
    }

    @Test func anUnknownCostSpendsTheWholeReservation() async throws {
        let budget = CostBudget(limit: 10)
        let answered = try await budget.reserve(1.5).get()
        let unknown = try await budget.reserve(2.5).get()
        let notSent = try await budget.reserve(3.0).get()
        await budget.settle(answered, cost: 0.25)
        await budget.settle(unknown, cost: nil)
        await budget.release(notSent)
        #expect(await budget.spent == 2.75)
        #expect(await budget.reserved == 0)
    }

    @Test func costsThatAddUpToTheLimitOnPaperFitDespiteRounding() async throws {
        // 0.1 ten times is 0.9999999999999999 or 1.0000000000000002 depending on the order;
        // either way the tenth request fits a limit of 1.0, and an eleventh does not.
        let budget = CostBudget(limit: 1.0)
        for _ in 0..<10 {
            let reservation = try await budget.reserve(0.1).get()
            await budget.settle(reservation, cost: 0.1)
        }
        #expect(await budget.spent > 0.99)
        guard case .failure = await budget.reserve(0.1) else {
            Issue.record("an eleventh 0.1 passes 1.0")
            return
        }
    }

    @Test func concurrentReservationsNeverTogetherPassTheLimit() async throws {
        let budget = CostBudget(limit: 10)
        let granted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    if case .success = await budget.reserve(0.3) { return true }
                    return false
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(granted == 33)
        #expect(await budget.reserved <= 10)
    }

    @Test func aNegativeAmountOrCostCountsAsNothing() async throws {
        let budget = CostBudget(limit: 1)
        let reservation = try await budget.reserve(-5).get()
        #expect(reservation.amount == 0)
        await budget.settle(reservation, cost: -2)
        #expect(await budget.spent == 0)
    }

    @Test func theStopReasonSaysTheLimitWhatWasSpentAndWhatWasLeft() {
        let reason = StopReason.costLimit(limit: 5, spent: 4.87)
        #expect(reason.kind == "cost_limit")
        #expect(
            reason.description
                == "the spending limit of $5.00 would be passed: $4.87 spent, and the next request could cost more than the $0.13 left"
        )
    }
}
