import Testing

@testable import XizorAPI
@testable import XizorDomain

/// SemVer 2.0 precedence (§11), with the one leniency app versions need (`2.1` is `2.1.0`).
@Suite struct SemanticVersionTests {
    /// Each version is below the next: SemVer §11's own example chain, then numeric components
    /// that string order gets wrong.
    @Test func precedenceFollowsTheSpecification() throws {
        let ascending = [
            "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11",
            "1.0.0-rc.1", "1.0.0", "1.9.0", "1.10.0", "1.10.1", "2", "2.0.1", "10.0.0",
        ]
        let versions = try ascending.map { try #require(SemanticVersion($0), "\($0)") }
        for (lower, higher) in zip(versions, versions.dropFirst()) {
            #expect(lower < higher, "\(lower) < \(higher)")
            #expect(!(higher < lower), "\(higher) is not < \(lower)")
        }
        #expect(versions.sorted() == versions)
    }

    @Test(arguments: [
        ("2.1", "2.1.0"), ("3", "3.0.0"), ("1.0.0+build.5", "1.0.0"), ("1.0.0-rc.1+exp.sha.5114f85", "1.0.0-rc.1"),
    ])
    func shortFormsAndBuildMetadataCompareEqual(a: String, b: String) throws {
        let x = try #require(SemanticVersion(a))
        let y = try #require(SemanticVersion(b))
        #expect(x == y)
    }

    @Test(arguments: [
        "", "v1.2.3", "1.2.3.4", "01.2.3", "1.02", "1..2", "1.2.", ".1", "1.2.3-", "1.2.3-01", "1.2.3-a..b", "1.2.3+",
        "1.2.3 (45)", "1.2.3-beta!", "99999999999999999999.0.0", "latest", "1.0.0-é",
        String(repeating: "1", count: 129),
    ])
    func whatIsNotAVersion(text: String) {
        #expect(SemanticVersion(text) == nil, "\(text)")
    }

    @Test func numericPreReleaseIdentifiersRankBelowAlphanumericOnes() throws {
        func v(_ s: String) throws -> SemanticVersion { try #require(SemanticVersion(s)) }
        #expect(try v("1.0.0-2") < v("1.0.0-a"))
        #expect(try v("1.0.0-2") < v("1.0.0-10"))
        #expect(try v("1.0.0-Z") < v("1.0.0-a"), "ASCII order")
    }
}
