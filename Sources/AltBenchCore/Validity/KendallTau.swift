/// Kendall's rank correlation, in Stuart's τc form, as `scipy.stats.kendalltau(variant="c")`
/// computes it: 2 (C − D) / (n² (m − 1) / m), where C and D count the concordant and
/// discordant pairs, a pair tied on either side counts as neither, and m is the smaller
/// number of distinct values of the two sides. The usual figure for how well a caption metric
/// ranks captions as people do (CLIPScore, PAC-S and Polos report it on Flickr8k-Expert,
/// Composite and Polaris).
package enum KendallTau {
    /// τc of `x` against `y` (the same length); `nil` with fewer than two pairs or a side that
    /// has one value only.
    package static func tauC(_ x: [Double], _ y: [Double]) -> Double? {
        precondition(x.count == y.count, "tau-c needs paired values")
        let n = x.count
        let m = min(Set(x).count, Set(y).count)
        guard n > 1, m > 1 else { return nil }
        var balance = 0  // concordant − discordant
        for i in 0..<n {
            let (xi, yi) = (x[i], y[i])
            for j in (i + 1)..<n {
                let dx = x[j] - xi
                let dy = y[j] - yi
                if dx == 0 || dy == 0 { continue }
                balance += (dx > 0) == (dy > 0) ? 1 : -1
            }
        }
        let nn = Double(n) * Double(n)
        let mm = Double(m)
        return 2 * Double(balance) / (nn * (mm - 1) / mm)
    }
}
