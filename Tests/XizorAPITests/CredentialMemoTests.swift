import Testing

@testable import XizorAPI
@testable import XizorDomain

/// The memo finds a credential by its whole bytes: credentials that share the bucket word (the same
/// last eight bytes and length) or differ in one byte anywhere are told apart, short ones work, and
/// forgetting an app's keys forgets exactly their credentials.
@Test func theMemoMatchesWholeCredentialsOnly() {
    let a = VerifiedKey(id: "k_a", principal: .publicKey(appID: "app_1"))
    let b = VerifiedKey(id: "k_b", principal: .publicKey(appID: "app_2"))
    let c = VerifiedKey(id: "k_c", principal: .secret(appID: "app_1"))
    var memo = CredentialMemo()
    memo.insert("Bearer pk_aaaa_SAMETAIL", a)
    memo.insert("Bearer pk_bbbb_SAMETAIL", b)  // same length and last eight bytes: one bucket
    memo.insert("xy", c)  // shorter than a word
    #expect(memo.count == 3)
    #expect(memo.find("Bearer pk_aaaa_SAMETAIL") === a)
    #expect(memo.find("Bearer pk_bbbb_SAMETAIL") === b)
    #expect(memo.find("Bearer pk_cccc_SAMETAIL") == nil)
    #expect(memo.find("Bearer pk_aaaa_SAMETAI") == nil)
    #expect(memo.find("Bearer pk_aaaa_SAMETAILx") == nil)
    #expect(memo.find("xy") === c && memo.find("x") == nil && memo.find("") == nil)
    let bytes = Array("Bearer pk_bbbb_SAMETAIL".utf8)
    #expect(bytes.withUnsafeBufferPointer { memo.find($0) } === b)
    // Every single-byte change of a stored credential misses.
    for i in bytes.indices {
        var changed = bytes
        changed[i] ^= 0x01
        #expect(changed.withUnsafeBufferPointer { memo.find($0) } == nil, "byte \(i) changed")
    }
    memo.insert("Bearer pk_aaaa_SAMETAIL", b)  // inserted again: replaced, not counted twice
    #expect(memo.count == 3 && memo.find("Bearer pk_aaaa_SAMETAIL") === b)
    memo.removeAll { $0.principal.appID == "app_2" }
    #expect(memo.count == 1 && memo.find("Bearer pk_aaaa_SAMETAIL") == nil && memo.find("xy") === c)
    memo.removeAll()
    #expect(memo.count == 0 && memo.find("xy") == nil)
}
