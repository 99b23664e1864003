import Testing

@testable import XizorDomain

/// A placement key with its hash computed elsewhere (the route memo's) finds what the key hashed
/// here finds, and names that differ never match.
@Test func aNameHashedElsewhereFindsTheSameEntry() {
    var table: [HashedName: Int] = [:]
    let names = (0..<500).map { "placement-\($0)" } + ["", "é", "onboarding"]
    for (i, name) in names.enumerated() { table[HashedName(name)] = i }
    for (i, name) in names.enumerated() {
        #expect(table[HashedName(name, hash: name.hashValue)] == i, "\(name)")
    }
    #expect(table["placement-500"] == nil)
    #expect(HashedName("a") != HashedName("b") && HashedName("a") == "a")
}
