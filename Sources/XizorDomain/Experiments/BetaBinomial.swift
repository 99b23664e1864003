import Foundation

/// Bayesian comparison of conversion rates. Each variant's rate gets the posterior
/// Beta(1 + conversions, 1 + subscribers − conversions): the stated prior is the uniform Beta(1, 1)
/// (every rate equally likely before any data). From the posteriors: the probability that a variant
/// beats the control, P(rate_v > rate_c) = ∫ f_v(y) F_c(y) dy, and that it is the best of all,
/// P(best_v) = ∫ f_v(y) ∏_{j≠v} F_j(y) dy — integrated deterministically (Simpson's rule over the
/// variant's own posterior, mean ± 12 standard deviations, where all its mass is), with the Beta CDF
/// from the regularized incomplete beta function's continued fraction. No sampling: the same counts
/// always give the same figures.
enum BetaBinomial {
    struct Posterior: Sendable, Equatable {
        let a: Double
        let b: Double

        init(conversions: Int, trials: Int) {
            precondition(conversions >= 0 && trials >= conversions, "conversions are at most the trials")
            a = 1 + Double(conversions)
            b = 1 + Double(trials - conversions)
        }

        init(a: Double, b: Double) {
            precondition(a >= 1 && b >= 1, "posteriors of a uniform prior have a, b ≥ 1")
            self.a = a
            self.b = b
        }

        var mean: Double { a / (a + b) }
        var standardDeviation: Double { (a * b / ((a + b) * (a + b) * (a + b + 1))).squareRoot() }

        func density(_ y: Double) -> Double {
            guard y > 0 && y < 1 else {
                // a, b ≥ 1: the density at an end is 0 unless its exponent is 0.
                if y <= 0 { return a == 1 ? exp(-BetaBinomial.logBeta(a, b)) : 0 }
                return b == 1 ? exp(-BetaBinomial.logBeta(a, b)) : 0
            }
            return exp((a - 1) * log(y) + (b - 1) * log(1 - y) - BetaBinomial.logBeta(a, b))
        }

        func cdf(_ y: Double) -> Double { BetaBinomial.regularizedIncompleteBeta(y, a, b) }
    }

    /// For each posterior: the probability that its rate is above the first's (the control; 0.5 for
    /// the control itself is not reported), and that it is the highest of all.
    static func probabilities(_ posteriors: [Posterior]) -> (beatsFirst: [Double], best: [Double]) {
        guard let control = posteriors.first else { return ([], []) }
        var beats: [Double] = []
        var best: [Double] = []
        for (index, posterior) in posteriors.enumerated() {
            let others = posteriors.enumerated().filter { $0.offset != index }.map(\.element)
            beats.append(index == 0 ? 0.5 : integrate(posterior) { control.cdf($0) })
            best.append(integrate(posterior) { y in others.reduce(1) { $0 * $1.cdf(y) } })
        }
        return (beats, best)
    }

    /// ∫ f_p(y) g(y) dy by Simpson's rule over p's own mass.
    static func integrate(_ p: Posterior, _ g: (Double) -> Double) -> Double {
        let low = max(0, p.mean - 12 * p.standardDeviation)
        let high = min(1, p.mean + 12 * p.standardDeviation)
        let intervals = 2_000
        let h = (high - low) / Double(intervals)
        var sum = p.density(low) * g(low) + p.density(high) * g(high)
        for i in 1..<intervals {
            let y = low + Double(i) * h
            sum += (i % 2 == 1 ? 4 : 2) * p.density(y) * g(y)
        }
        return min(1, max(0, sum * h / 3))
    }

    /// The sample size per variant a two-sided test at α = 0.05 with 80 % power needs to detect a
    /// relative change `mde` of the control rate `p1` (normal approximation, pooled under the null).
    /// Nil when it cannot be stated (no control rate yet, or a target rate beyond 0…1).
    static func sampleSize(controlRate p1: Double, relativeEffect mde: Double) -> Int? {
        let p2 = p1 * (1 + mde)
        guard p1 > 0, p1 < 1, p2 > 0, p2 < 1, p2 != p1 else { return nil }
        let zAlpha = 1.959963984540054
        let zBeta = 0.8416212335729143
        let pooled = (p1 + p2) / 2
        let numerator =
            zAlpha * (2 * pooled * (1 - pooled)).squareRoot() + zBeta * (p1 * (1 - p1) + p2 * (1 - p2)).squareRoot()
        return Int((numerator * numerator / ((p2 - p1) * (p2 - p1))).rounded(.up))
    }

    // MARK: - Special functions

    /// ln Γ(x) for x > 0 (Lanczos, g = 7, nine coefficients: ~15 significant digits). Written here
    /// rather than Glibc's `lgamma`, which sets the process-wide `signgam` (a data race between requests).
    static func logGamma(_ x: Double) -> Double {
        precondition(x > 0, "logGamma is defined here for x > 0")
        let coefficients: [Double] = [
            0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
            12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
        ]
        if x < 0.5 { return log(Double.pi / sin(Double.pi * x)) - logGamma(1 - x) }
        let z = x - 1
        var sum = coefficients[0]
        for i in 1..<9 { sum += coefficients[i] / (z + Double(i)) }
        let t = z + 7.5
        return 0.5 * log(2 * Double.pi) + (z + 0.5) * log(t) - t + log(sum)
    }

    static func logBeta(_ a: Double, _ b: Double) -> Double { logGamma(a) + logGamma(b) - logGamma(a + b) }

    /// I_x(a, b) by its continued fraction (modified Lentz), using the symmetry
    /// I_x(a, b) = 1 − I_{1−x}(b, a) where the fraction converges slowly.
    static func regularizedIncompleteBeta(_ x: Double, _ a: Double, _ b: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        let front = exp(a * log(x) + b * log(1 - x) - logBeta(a, b))
        if x < (a + 1) / (a + b + 2) { return front * continuedFraction(x, a, b) / a }
        return 1 - front * continuedFraction(1 - x, b, a) / b
    }

    private static func continuedFraction(_ x: Double, _ a: Double, _ b: Double) -> Double {
        let tiny = 1e-300
        var c = 1.0
        var d = 1 - (a + b) * x / (a + 1)
        if abs(d) < tiny { d = tiny }
        d = 1 / d
        var result = d
        for m in 1...10_000 {
            let m = Double(m)
            let m2 = 2 * m
            var numerator = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
            d = 1 + numerator * d
            if abs(d) < tiny { d = tiny }
            c = 1 + numerator / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            result *= d * c
            numerator = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
            d = 1 + numerator * d
            if abs(d) < tiny { d = tiny }
            c = 1 + numerator / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            result *= delta
            if abs(delta - 1) < 1e-15 { break }
        }
        return result
    }
}
