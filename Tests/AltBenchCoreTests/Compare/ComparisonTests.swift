import Foundation
import Testing

@testable import AltBenchCore

@Suite("Comparison and check")
struct ComparisonTests {
    // MARK: - Builders

    /// A snapshot with one pair of `count` items; `fails` maps a check id to the items failing it.
    static func snapshot(
        count: Int = 20, fails: [String: Set<Int>] = [:], quality: Double = 0.8, provider: String = "openai",
        models: [String] = ["gpt-4o-mini"], dataset: String = "d1", host: String = "api.openai.com",
        maxTokens: [Int?] = [50], repeats: Int = 1, unstable: [Int: String] = [:]
    ) -> RunSnapshot {
        let checks = [ScoreName.firstPerson, ScoreName.refusal, ScoreName.truncated, ScoreName.empty]
        var items: [String: RunSnapshot.ItemOutcome] = [:]
        for index in 0..<count {
            var shares: [String: Double] = [:]
            for check in checks { shares[check] = fails[check]?.contains(index) == true ? 0 : 1 }
            if let check = unstable[index] { shares[check] = 0.5 }
            let failed = shares.values.contains { $0 < 1 }
            items[String(format: "item%02d", index)] = RunSnapshot.ItemOutcome(
                passed: shares, quality: failed ? 0 : quality, answered: repeats, repeats: repeats,
                answer: "Answer \(index)\(failed ? " (failing)" : "")")
        }
        var metrics: [String: Double] = [:]
        for check in checks {
            metrics[check] = items.values.map { 1 - ($0.passed[check] ?? 1) }.reduce(0, +) / Double(count)
        }
        metrics["quality"] = items.values.compactMap(\.quality).reduce(0, +) / Double(count)
        metrics["hard_fails"] = Double(items.values.filter { $0.quality == 0 }.count) / Double(count)
        metrics["length_mean"] = 80
        let rows = maxTokens.map { limit in
            var row = RunSnapshot.Row(
                variant: "v", maxTokens: limit, n: count * repeats, answered: count * repeats, errors: 0, metrics: metrics,
                items: items)
            let variant = PromptVariant(name: "v", file: "prompts/v.md", text: "Describe.")
            row.recordRequest(RequestRule().templateRequest(variant: variant, maxTokens: limit), prompt: variant.text)
            return row
        }
        return RunSnapshot(
            altbenchVersion: "0.1.0", runID: "run", provider: provider, models: models, endpointHost: host,
            dataset: RunSnapshot.DatasetIdentity(path: "datasets/sample", sha256: dataset, items: count),
            repeats: repeats, rows: rows)
    }

    static func verdict(
        _ before: RunSnapshot, _ after: RunSnapshot, _ thresholds: CheckThresholds = CheckThresholds()
    ) -> CheckVerdict {
        CheckVerdict(comparison: Comparison(before: before, after: after, alpha: thresholds.alpha), thresholds: thresholds)
    }

    static func result(_ verdict: CheckVerdict, _ check: String) -> CheckVerdict.Result? {
        verdict.results.first { $0.check == check }
    }

    // MARK: - Verdicts

    @Test("a run identical to its baseline passes every check with exit status 0")
    func identicalPasses() throws {
        let verdict = Self.verdict(Self.snapshot(), Self.snapshot())
        #expect(verdict.status == .pass)
        #expect(verdict.exitCode == 0)
        #expect(verdict.results.map(\.check) == ["errors", "quality", "first_person", "refusal", "truncated", "significance"])
        #expect(verdict.failures.isEmpty)
        #expect(verdict.headline.hasPrefix("altbench check: passed"))
        let pair = try #require(verdict.comparison.pairs.first)
        #expect(pair.flips.isEmpty)
        #expect(pair.pairedItems == 20)
        #expect(pair.metrics.allSatisfy { $0.direction == .same || $0.direction == .neutral })
    }

    @Test(arguments: [
        (0.8, 0.79, true), (0.8, 0.781, true), (0.8, 0.78, true), (0.8, 0.779, false), (0.8, 0.7, false), (0.5, 0.9, true),
    ])
    func qualityMayFallAtMostTheLimit(before: Double, after: Double, passes: Bool) throws {
        // Quality moves on every item alike, so the paired bootstrap sees no noise: keep it out.
        let thresholds = CheckThresholds(failOnSignificant: false)
        let verdict = Self.verdict(Self.snapshot(quality: before), Self.snapshot(quality: after), thresholds)
        let quality = try #require(Self.result(verdict, "quality"))
        #expect(quality.passed == passes, "\(quality.message)")
        #expect(verdict.exitCode == (passes ? 0 : 1))
        if !passes { #expect(verdict.headline.hasPrefix("altbench check: regression — v @ 50: quality fell")) }
    }

    @Test("first person and refusals may not rise at all; truncation may rise 2 points")
    func rateLimits() throws {
        let thresholds = CheckThresholds(failOnSignificant: false)
        let base = Self.snapshot(fails: [ScoreName.truncated: [0]])
        let oneFirstPerson = Self.verdict(base, Self.snapshot(fails: [ScoreName.truncated: [0], ScoreName.firstPerson: [3]]), thresholds)
        #expect(Self.result(oneFirstPerson, ScoreName.firstPerson)?.passed == false)
        #expect(Self.result(oneFirstPerson, ScoreName.firstPerson)?.message.contains("0.0% → 5.0% (+5.0 points; may not rise)") == true)
        let oneRefusal = Self.verdict(base, Self.snapshot(fails: [ScoreName.truncated: [0], ScoreName.refusal: [3]]), thresholds)
        #expect(Self.result(oneRefusal, ScoreName.refusal)?.passed == false)
        // 1 of 20 more truncated is 5 points: over the 2-point allowance; with 100 items it is 1 point.
        let moreCut = Self.verdict(base, Self.snapshot(fails: [ScoreName.truncated: [0, 1]]), thresholds)
        #expect(Self.result(moreCut, ScoreName.truncated)?.passed == false)
        let wide = Self.verdict(
            Self.snapshot(count: 100, fails: [ScoreName.truncated: [0]]),
            Self.snapshot(count: 100, fails: [ScoreName.truncated: [0, 1]]), thresholds)
        #expect(Self.result(wide, ScoreName.truncated)?.passed == true)
        let fewer = Self.verdict(base, Self.snapshot(), thresholds)
        #expect(fewer.status == .pass, "a fall is never a regression")
        // Configured limits replace the defaults.
        let lenient = CheckThresholds(maxQualityDrop: 1, maxFirstPersonRise: 0.05, failOnSignificant: false)
        #expect(Self.verdict(base, Self.snapshot(fails: [ScoreName.truncated: [0], ScoreName.firstPerson: [3]]), lenient).status == .pass)
    }

    @Test("a significant paired regression fails, with the exact McNemar p-value")
    func significance() throws {
        let everyItem = Set(0..<20)
        let verdict = Self.verdict(
            Self.snapshot(), Self.snapshot(fails: [ScoreName.empty: everyItem]),
            CheckThresholds(maxQualityDrop: 1))
        let metric = try #require(verdict.comparison.pairs[0].metric(ScoreName.empty))
        let test = try #require(metric.test)
        #expect(test.method == .exactMcNemar)
        #expect(test.worsened == 20 && test.improved == 0)
        #expect(abs(test.p - CompareStatistics.exactMcNemar(b: 20, c: 0)) < 1e-15)
        #expect(test.significant && metric.isSignificantRegression)
        let significance = try #require(Self.result(verdict, "significance"))
        #expect(!significance.passed)
        #expect(significance.message.contains("empty (p < 0.001)"), "\(significance.message)")
        #expect(Self.result(verdict, "quality")?.passed == true, "quality's limit was lifted")
        let quality = try #require(verdict.comparison.pairs[0].metric("quality")?.test)
        #expect(quality.method == .pairedBootstrap && quality.favours == .worse && quality.significant)

        // Two items out of twenty is not significant (p = 0.5), and with the switch off nothing fails on p.
        let small = Self.verdict(Self.snapshot(), Self.snapshot(fails: [ScoreName.empty: [1, 2]]), CheckThresholds(maxQualityDrop: 1))
        #expect(Self.result(small, "significance")?.passed == true)
        #expect(small.comparison.pairs[0].metric(ScoreName.empty)?.test?.p == 0.5)
        let off = Self.verdict(
            Self.snapshot(), Self.snapshot(fails: [ScoreName.empty: everyItem]),
            CheckThresholds(maxQualityDrop: 1, failOnSignificant: false))
        #expect(Self.result(off, "significance") == nil)
        #expect(off.status == .pass)
    }

    @Test("rates carry Wilson intervals over the answered trials")
    func wilsonIntervals() throws {
        let comparison = Comparison(before: Self.snapshot(), after: Self.snapshot(fails: [ScoreName.firstPerson: [1, 2, 3]]))
        let metric = try #require(comparison.pairs[0].metric(ScoreName.firstPerson))
        let expected = try #require(CompareStatistics.wilson(successes: 3, total: 20))
        #expect(metric.afterInterval == expected.low...expected.high)
        #expect(metric.beforeInterval?.lowerBound == 0)
        #expect(metric.direction == .worse)
        #expect(abs((metric.delta ?? 0) - 0.15) < 1e-12)
    }

    @Test("flips list each item whose hard check passed on one side and failed on the other, with both answers")
    func flips() throws {
        let comparison = Comparison(
            before: Self.snapshot(fails: [ScoreName.truncated: [4]]),
            after: Self.snapshot(fails: [ScoreName.firstPerson: [2]]))
        let flips = comparison.pairs[0].flips
        #expect(flips.count == 2)
        let regressed = try #require(flips.first { $0.regressed })
        #expect(regressed.item == "item02" && regressed.check == ScoreName.firstPerson)
        #expect(regressed.beforeAnswer == "Answer 2" && regressed.afterAnswer == "Answer 2 (failing)")
        let fixed = try #require(flips.first { !$0.regressed })
        #expect(fixed.item == "item04" && fixed.check == ScoreName.truncated)
    }

    @Test("items whose repeats disagree are listed as unstable; repeats fold into one value per item")
    func instability() throws {
        let comparison = Comparison(
            before: Self.snapshot(), after: Self.snapshot(repeats: 3, unstable: [7: ScoreName.firstPerson]))
        let pair = comparison.pairs[0]
        #expect(pair.unstable.map(\.item) == ["item07"])
        #expect(pair.unstable.first?.passed == [ScoreName.firstPerson: 0.5])
        #expect(pair.flips.isEmpty, "a half-passing item is neither passed nor failed")
        #expect(comparison.notes.contains { $0.hasPrefix("Repeats differ: 1 → 3") })
        #expect(pair.metric(ScoreName.firstPerson)?.test?.worsened == 1)
    }

    // MARK: - Failed trials

    /// `snapshot` with the first `failing` items of every pair unanswered: their trials
    /// failed, so they have no checks, quality or answer, and with no answer at all the row
    /// has no figures (as ``RunSnapshot/init(_:)`` builds it).
    static func unanswered(_ snapshot: RunSnapshot, failing: Int, reason: String = "no stored answer for this trial") -> RunSnapshot {
        var snapshot = snapshot
        for index in snapshot.rows.indices {
            var row = snapshot.rows[index]
            for id in row.items.keys.sorted().prefix(failing) {
                row.items[id] = RunSnapshot.ItemOutcome(
                    passed: [:], quality: nil, answered: 0, repeats: row.items[id]!.repeats, answer: nil)
            }
            let failedTrials = row.items.values.filter { $0.answered == 0 }.map(\.repeats).reduce(0, +)
            row.errors = failedTrials
            row.answered = row.n - failedTrials
            row.firstError = failedTrials > 0 ? reason : nil
            if row.answered == 0 { row.metrics = [:] }
            snapshot.rows[index] = row
        }
        return snapshot
    }

    @Test("a pair that got no answers fails every check it could not measure, the failed trials first")
    func unansweredPairFails() throws {
        let verdict = Self.verdict(Self.snapshot(), Self.unanswered(Self.snapshot(), failing: 20))
        #expect(verdict.status == .regression)
        #expect(verdict.exitCode == 1)
        #expect(verdict.results.map(\.check) == ["errors", "quality", "first_person", "refusal", "truncated", "significance"])
        #expect(verdict.results.allSatisfy { $0.failed }, "\(verdict.results.map { "\($0.check): \($0.message)" })")
        #expect(!verdict.results.contains { $0.message.contains("held") })
        let errors = try #require(Self.result(verdict, "errors"))
        #expect(errors.message.hasPrefix("rose: 0 of 20 trials failed in the baseline, 20 of 20 in the run (+100.0 points; may not rise)"), "\(errors.message)")
        #expect(errors.message.contains("The run got no answer for this pair; first reason: no stored answer for this trial."))
        #expect(verdict.headline.hasPrefix("altbench check: regression — v @ 50: errors rose: 0 of 20 trials failed in the baseline, 20 of 20 in the run"))
        let quality = try #require(Self.result(verdict, "quality"))
        #expect(quality.message == "not measured: the baseline measured 0.800, but the run answered none of this pair's 20 trials: fix what made them fail (see `errors`) and run again.")
        #expect(Self.result(verdict, ScoreName.firstPerson)?.message.hasPrefix("not measured: the baseline measured 0.0%, but the run answered none") == true)
        #expect(Self.result(verdict, "significance")?.message.hasPrefix("not measured: no item was answered on both sides") == true)
        let line = try #require(verdict.pairSummaries.first)
        #expect(line.before?.answered == 20 && line.before?.failed == 0)
        #expect(line.after?.answered == 0 && line.after?.failed == 20 && line.after?.quality == nil)
        // Every check but the judge's, which a baseline that was not judged does not hold.
        #expect(
            line.failedChecks
                == ["errors", "quality", ScoreName.firstPerson, ScoreName.refusal, ScoreName.truncated, "significance"])

        // Without significance the measured-nowhere checks still fail: not measured is never held.
        let lenient = Self.verdict(
            Self.snapshot(), Self.unanswered(Self.snapshot(), failing: 20),
            CheckThresholds(maxErrorRise: 1, maxQualityDrop: 1, failOnSignificant: false))
        #expect(Self.result(lenient, "errors")?.passed == true)
        #expect(lenient.status == .regression)
        #expect(lenient.failures.map(\.check) == ["quality", "first_person", "refusal", "truncated"])
    }

    @Test("the share of failed trials may not rise by default; max_error_rise allows some")
    func failedTrialsMayNotRise() throws {
        let thresholds = CheckThresholds(failOnSignificant: false)
        let some = Self.verdict(Self.snapshot(), Self.unanswered(Self.snapshot(), failing: 3), thresholds)
        let errors = try #require(Self.result(some, "errors"))
        #expect(errors.failed)
        #expect(errors.message.contains("0 of 20 trials failed in the baseline, 3 of 20 in the run (+15.0 points; may not rise). 17 of 20 trials answered; first reason: no stored answer for this trial. Fix the cause"))
        // The answered items are still measured, and they held.
        #expect(some.failures.map(\.check) == ["errors"])
        let allowed = Self.verdict(
            Self.snapshot(), Self.unanswered(Self.snapshot(), failing: 3), CheckThresholds(maxErrorRise: 0.15, failOnSignificant: false))
        #expect(Self.result(allowed, "errors")?.passed == true)
        #expect(allowed.status == .pass)
        #expect(Self.verdict(Self.snapshot(), Self.unanswered(Self.snapshot(), failing: 4), CheckThresholds(maxErrorRise: 0.15)).status == .regression)
        // As many failures as the baseline had, or fewer, hold.
        let same = Self.verdict(Self.unanswered(Self.snapshot(), failing: 3), Self.unanswered(Self.snapshot(), failing: 3), thresholds)
        #expect(Self.result(same, "errors")?.message.hasPrefix("held: 3 of 20 trials failed in the baseline, 3 of 20 in the run") == true)
        #expect(same.status == .pass)
        #expect(Self.verdict(Self.unanswered(Self.snapshot(), failing: 3), Self.snapshot(), thresholds).status == .pass)
    }

    @Test("a check the baseline did not measure is skipped, never counted as held")
    func unmeasuredInTheBaselineIsSkipped() throws {
        var baseline = Self.snapshot()
        baseline.rows[0].metrics[ScoreName.refusal] = nil
        let verdict = Self.verdict(baseline, Self.snapshot())
        let refusal = try #require(Self.result(verdict, ScoreName.refusal))
        #expect(refusal.outcome == .skipped)
        #expect(!refusal.passed && !refusal.failed)
        #expect(refusal.message == "not measured in the baseline (the run measured 0.0%). Save a new baseline to check it.")
        #expect(verdict.status == .pass)
        #expect(verdict.headline == "altbench check: passed — 5 checks over 1 variant × max_tokens pair held, 1 skipped (not measured in the baseline).")
        #expect(verdict.pairSummaries.first?.skippedChecks == [ScoreName.refusal])

        // A baseline pair that got no answers holds the run to nothing but its failed trials.
        let empty = Self.unanswered(Self.snapshot(), failing: 20)
        let nothing = Self.verdict(empty, empty)
        #expect(Self.result(nothing, "errors")?.passed == true)
        #expect(nothing.results.dropFirst().allSatisfy { $0.skipped })
        #expect(Self.result(nothing, "quality")?.message.hasPrefix("not measured in the baseline, which answered none of this pair's 20 trials") == true)
        #expect(nothing.headline.hasPrefix("altbench check: passed — 1 check over 1 variant × max_tokens pair held, 5 skipped"))

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(verdict), as: UTF8.self)
        #expect(text.contains(#""outcome":"skipped","passed":false"#), "\(text.prefix(400))")
    }

    @Test("pairs keep the run's order, not the names'")
    func pairOrder() throws {
        func snapshot(_ variants: [String]) -> RunSnapshot {
            var base = Self.snapshot()
            let row = base.rows[0]
            base.rows = variants.map { name in
                var copy = row
                copy.variant = name
                return copy
            }
            return base
        }
        let verdict = Self.verdict(snapshot(["zeta", "alpha", "mid"]), snapshot(["zeta", "mid", "alpha"]))
        #expect(verdict.comparison.pairs.map(\.variant) == ["zeta", "mid", "alpha"])
        #expect(verdict.pairSummaries.map(\.variant) == ["zeta", "mid", "alpha"])
        #expect(verdict.results.map(\.variant) == ["zeta", "mid", "alpha"].flatMap { Array(repeating: $0, count: 6) })
    }

    @Test("a p-value of 0 reads p < 0.001, never p = 0")
    func pZero() throws {
        #expect(SignificanceTest.describe(p: 0) == "p < 0.001")
        #expect(SignificanceTest.describe(p: 0.0009) == "p < 0.001")
        #expect(SignificanceTest.describe(p: 0.001) == "p = 0.001")
        #expect(SignificanceTest.describe(p: 0.0312) == "p = 0.031")
        // Quality falls on every item: no bootstrap resample reaches 0.
        let verdict = Self.verdict(Self.snapshot(quality: 0.9), Self.snapshot(quality: 0.5))
        let test = try #require(verdict.comparison.pairs[0].metric("quality")?.test)
        #expect(test.p == 0)
        let significance = try #require(Self.result(verdict, "significance"))
        #expect(significance.message == "significantly worse at p < 0.05: quality (p < 0.001)")
    }

    // MARK: - Invalid comparisons

    @Test(arguments: [
        ("mock", "a mock run says nothing about a real model"),
        ("models", "the model differs: baseline gpt-4o-mini, run gpt-4.1-mini"),
        ("dataset", "the dataset differs"),
    ])
    func mismatchesAreErrors(kind: String, message: String) throws {
        let after =
            switch kind {
            case "mock": Self.snapshot(provider: "mock", host: "mock")
            case "models": Self.snapshot(models: ["gpt-4.1-mini"])
            default: Self.snapshot(dataset: "d2")
            }
        let verdict = Self.verdict(Self.snapshot(), after)
        #expect(verdict.status == .error)
        #expect(verdict.exitCode == 2)
        #expect(verdict.headline.hasPrefix("altbench check: cannot compare — "))
        #expect(verdict.headline.contains(message), "\(verdict.headline)")
    }

    @Test("a run through a signed proxy is checked against a direct baseline, and back")
    func proxyAndDirectRunsCompare() throws {
        let proxied = Self.snapshot(provider: "proxy", host: "proxy.example.test")
        for verdict in [Self.verdict(Self.snapshot(), proxied), Self.verdict(proxied, Self.snapshot())] {
            #expect(verdict.status == .pass, "\(verdict.headline)")
            #expect(verdict.comparison.mismatches.isEmpty)
        }
        let mock = Self.verdict(proxied, Self.snapshot(provider: "mock", host: "mock"))
        #expect(mock.status == .error)
    }

    @Test("another endpoint host is a note; a pair the run lacks is an error; a new pair is not judged")
    func pairsAndHosts() throws {
        let otherHost = Self.verdict(Self.snapshot(), Self.snapshot(host: "proxy.example.test"))
        #expect(otherHost.status == .pass)
        #expect(otherHost.comparison.notes == ["The endpoint host differs: api.openai.com → proxy.example.test."])

        let missing = Self.verdict(Self.snapshot(maxTokens: [50, 100]), Self.snapshot(maxTokens: [50]))
        #expect(missing.status == .error)
        #expect(missing.errors == ["the run has no trials for v @ 100, which the baseline has. Run it, or save a new baseline without it."])
        #expect(missing.comparison.pairs.map(\.label) == ["v @ 50", "v @ 100"])

        let added = Self.verdict(Self.snapshot(maxTokens: [50]), Self.snapshot(maxTokens: [50, nil]))
        #expect(added.status == .pass)
        #expect(Set(added.results.map(\.label)) == ["v @ 50"])
        #expect(added.comparison.pairs.last?.before == nil && added.comparison.pairs.last?.label == "v @ none")
    }

    @Test("the JSON for tools is snake_case and holds deltas, directions and the exit status")
    func json() throws {
        let verdict = Self.verdict(Self.snapshot(), Self.snapshot(fails: [ScoreName.firstPerson: [1]]))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(verdict), as: UTF8.self)
        for key in ["\"exit_code\":1", "\"status\":\"regression\"", "\"max_tokens\":50", "\"paired_items\":20",
                    "\"direction\":\"worse\"", "\"delta\":0.05", "\"max_quality_drop\":0.02", "\"method\":\"exact_mcnemar\""] {
            #expect(text.contains(key), "\(key)")
        }
    }
}
