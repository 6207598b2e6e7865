import Testing

@testable import AltBenchCore

@Suite("TokenBucket")
struct TokenBucketTests {
    @Test func aFullBucketPaysUntilEmptyThenSaysHowLongToWait() {
        var bucket = TokenBucket(capacity: 5, perSecond: 1, now: .zero)
        var taken: [Bool] = []
        for _ in 0..<6 { taken.append(bucket.take(at: .zero)) }
        #expect(taken == [true, true, true, true, true, false])
        #expect(bucket.available(at: .zero) == 0)
        #expect(bucket.wait(for: 1, at: .zero) == .seconds(1))
        #expect(bucket.wait(for: 5, at: .zero) == .seconds(5))

        #expect(bucket.available(at: .milliseconds(1500)) == 1.5)
        let paid = bucket.take(at: .milliseconds(1500))
        #expect(paid)
        #expect(bucket.wait(for: 1, at: .milliseconds(1500)) == .milliseconds(500))
        #expect(bucket.wait(for: 5, at: .milliseconds(1500)) == .milliseconds(4500))
    }

    @Test func aClockGoingBackwardsRefillsNothingAndALongPauseFillsNoFurther() {
        var bucket = TokenBucket(capacity: 5, perSecond: 1, level: 0.5, now: .seconds(10))
        bucket.settle(at: .seconds(2))
        #expect(bucket.available(at: .seconds(2)) == 0.5)
        #expect(bucket.asOf == .seconds(10))
        let early = bucket.take(at: .seconds(2))
        #expect(!early)
        #expect(bucket.available(at: .seconds(1000)) == 5)
    }

    @Test func spendingAheadGoesBelowZeroAndIsWaitedOut() {
        var bucket = TokenBucket(capacity: 2, perSecond: 2, now: .zero)
        bucket.spend(5, at: .zero)
        #expect(bucket.level == -3)
        #expect(bucket.wait(for: 1, at: .zero) == .seconds(2))
        // A cost above the capacity waits for a full bucket, but `take` never pays it.
        #expect(bucket.wait(for: 10, at: .zero) == .milliseconds(2500))
        let tooMuch = bucket.take(10, at: .seconds(100))
        let whole = bucket.take(2, at: .seconds(100))
        #expect(!tooMuch && whole)
    }

    @Test func refundsAndRateChangesKeepWhatWasRefilled() {
        var bucket = TokenBucket(capacity: 10, perSecond: 1, level: 0, now: .zero)
        bucket.refund(3, at: .seconds(2))
        #expect(bucket.available(at: .seconds(2)) == 5)
        bucket.refund(100, at: .seconds(2))
        #expect(bucket.available(at: .seconds(2)) == 10)
        bucket.refund(-10, at: .seconds(2))
        bucket.setRate(4, at: .seconds(2))
        #expect(bucket.available(at: .seconds(3)) == 4)
        // A rate of zero would never refill: it is held at the slowest rate.
        bucket.setRate(0, at: .seconds(3))
        #expect(bucket.perSecond == TokenBucket.slowestRate)
    }

    @Test func aPerMinuteLimitHoldsTheSecondsItIsGiven() {
        let oneSecond = TokenBucket(perMinute: 600, holdingSeconds: 1, now: .zero)
        #expect(oneSecond.capacity == 10)
        #expect(oneSecond.perSecond == 10)
        let six = TokenBucket(perMinute: 600, holdingSeconds: 6, now: .zero)
        #expect(six.capacity == 60)
        // At least one token, however slow the limit.
        let slow = TokenBucket(perMinute: 1, holdingSeconds: 1, now: .zero)
        #expect(slow.capacity == 1)
        #expect(slow.wait(for: 1, at: .zero) == nil)
    }
}
