import Testing
import XizorFuzzing

/// Every committed seed and every regression input (a crash a fuzz run found, kept after its fix)
/// through its target's properties, in every `make test`. docs/fuzzing.md says how inputs get here.
@Suite struct CorpusReplayTests {
    static let fuzzRoot: String = {
        let file = #filePath
        let tests = file[..<(file.range(of: "/Tests/FuzzTests/")?.lowerBound ?? file.endIndex)]
        return "\(tests)/Tests/fuzz"
    }()

    /// Seeds each target must have, so that an emptied or moved corpus fails here instead of passing.
    static let minimumSeeds: [FuzzTarget: Int] = [.httpParser: 50, .json: 5, .document: 3, .render: 3, .condition: 10]

    @Test(arguments: FuzzTarget.allCases)
    func seedsKeepTheirProperties(_ target: FuzzTarget) throws {
        let files = FuzzInputs.files(at: "\(Self.fuzzRoot)/corpus/\(target.rawValue)")
        #expect(files.count >= Self.minimumSeeds[target] ?? 1, "seed corpus of \(target.rawValue) at \(Self.fuzzRoot)")
        for file in files {
            let bytes = try #require(FuzzInputs.read(file), "\(file)")
            #expect(throws: Never.self, "\(file)") { try target.run(bytes) }
        }
    }

    @Test(arguments: FuzzTarget.allCases)
    func regressionsStayFixed(_ target: FuzzTarget) throws {
        let folder = "\(Self.fuzzRoot)/regressions/\(target.rawValue)"
        for file in FuzzInputs.files(at: folder) where file != folder {
            let bytes = try #require(FuzzInputs.read(file), "\(file)")
            #expect(throws: Never.self, "\(file)") { try target.run(bytes) }
        }
    }
}
