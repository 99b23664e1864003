import Foundation
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// The Bayesian figures of experiment results, against closed forms computed here independently.
@Suite struct BetaBinomialTests {
    /// Evan Miller's closed form of P(X > Y) for X ~ Beta(a1, b1), Y ~ Beta(a2, b2) with integer a1:
    /// Σ_{i=0}^{a1−1} B(a2 + i, b1 + b2) / ((b1 + i) B(1 + i, b1) B(a2, b2)) — written in logs.
    func closedForm(_ x: BetaBinomial.Posterior, beats y: BetaBinomial.Posterior) -> Double {
        var total = 0.0
        for i in 0..<Int(x.a) {
            let i = Double(i)
            total += exp(
                BetaBinomial.logBeta(y.a + i, x.b + y.b) - log(x.b + i) - BetaBinomial.logBeta(1 + i, x.b)
                    - BetaBinomial.logBeta(y.a, y.b))
        }
        return total
    }

    @Test func specialFunctionsMatchKnownValues() {
        #expect(abs(BetaBinomial.logGamma(0.5) - log(Double.pi.squareRoot())) < 1e-13)
        #expect(abs(BetaBinomial.logGamma(10) - log(362_880)) < 1e-12)
        #expect(abs(BetaBinomial.logGamma(1_000.5) - 5_908.674175848678) < 1e-8)
        for x in [0.01, 0.3, 0.5, 0.77, 0.99] {
            #expect(abs(BetaBinomial.regularizedIncompleteBeta(x, 1, 1) - x) < 1e-14)
            #expect(abs(BetaBinomial.regularizedIncompleteBeta(x, 4, 1) - pow(x, 4)) < 1e-13)
            // I_x(2, 3) = 6x²(1−x)² … summed: 1 − (1−x)^4 − 4x(1−x)^3.
            #expect(
                abs(BetaBinomial.regularizedIncompleteBeta(x, 2, 3) - (1 - pow(1 - x, 4) - 4 * x * pow(1 - x, 3)))
                    < 1e-13)
        }
        #expect(abs(BetaBinomial.regularizedIncompleteBeta(0.5, 2_000, 2_000) - 0.5) < 1e-12)
    }

    @Test(arguments: [
        (10, 100, 12, 100), (120, 1_000, 150, 1_000), (1_200, 10_000, 1_290, 10_000), (0, 5, 1, 5),
        (300, 2_000, 250, 2_100),
    ])
    func theProbabilityToBeatTheControlMatchesTheClosedForm(
        controlConversions: Int, controlTrials: Int, conversions: Int, trials: Int
    ) {
        let control = BetaBinomial.Posterior(conversions: controlConversions, trials: controlTrials)
        let variant = BetaBinomial.Posterior(conversions: conversions, trials: trials)
        let (beats, best) = BetaBinomial.probabilities([control, variant])
        // The reference's posteriors are written out from the counts with the stated Beta(1, 1) prior.
        #expect(
            control
                == BetaBinomial.Posterior(
                    a: Double(1 + controlConversions), b: Double(1 + controlTrials - controlConversions)))
        let expected = closedForm(
            BetaBinomial.Posterior(a: Double(1 + conversions), b: Double(1 + trials - conversions)),
            beats: BetaBinomial.Posterior(
                a: Double(1 + controlConversions), b: Double(1 + controlTrials - controlConversions)))
        #expect(abs(beats[1] - expected) < 1e-6, "\(beats[1]) vs \(expected)")
        #expect(
            abs(best[1] - expected) < 1e-6 && abs(best[0] - (1 - expected)) < 1e-6,
            "with two, best is beating the other")
    }

    @Test func probabilitiesToBeBestSumToOneAndAreDeterministic() {
        let equal = Array(repeating: BetaBinomial.Posterior(conversions: 50, trials: 500), count: 3)
        let (_, even) = BetaBinomial.probabilities(equal)
        #expect(even.allSatisfy { abs($0 - 1.0 / 3) < 1e-6 }, "\(even)")
        let mixed = [
            BetaBinomial.Posterior(conversions: 100, trials: 1_000),
            BetaBinomial.Posterior(conversions: 130, trials: 1_000),
            BetaBinomial.Posterior(conversions: 90, trials: 800),
        ]
        let first = BetaBinomial.probabilities(mixed)
        let second = BetaBinomial.probabilities(mixed)
        #expect(abs(first.best.reduce(0, +) - 1) < 1e-6, "\(first.best)")
        #expect(first.best == second.best && first.beatsFirst == second.beatsFirst)
        #expect(
            first.best[1] > 0.85 && first.best[1] == first.best.max(),
            "130/1000 is most likely best (0.86: 90/800 is not far behind)")
        // The uniform prior alone (no subscribers yet) would beat 13 % with probability 0.87: why the
        // results leave variants without subscribers out of the comparison.
        let (_, withEmpty) = BetaBinomial.probabilities(mixed + [BetaBinomial.Posterior(conversions: 0, trials: 0)])
        #expect(withEmpty[3] > 0.85)
    }

    @Test func theSampleSizeIsTheTextbookOne() {
        // p1 = 10 %, p2 = 11 % (a 10 % relative lift), α = 0.05 two-sided, 80 % power: 14,751 per variant.
        #expect(BetaBinomial.sampleSize(controlRate: 0.1, relativeEffect: 0.1) == 14_751)
        // p1 = 5 %, p2 = 6 %: 8,158.
        #expect(BetaBinomial.sampleSize(controlRate: 0.05, relativeEffect: 0.2) == 8_158)
        #expect(BetaBinomial.sampleSize(controlRate: 0, relativeEffect: 0.1) == nil)
        #expect(BetaBinomial.sampleSize(controlRate: 0.6, relativeEffect: 1) == nil, "a 120 % rate cannot be detected")
    }
}
