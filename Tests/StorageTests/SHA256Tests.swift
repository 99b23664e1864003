import Digest
import Storage
import Testing

@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func knownVectors(input: String, expected: String) {
        #expect(SHA256.hexDigest(of: input) == expected)
    }

    @Test func millionAs() {
        #expect(
            SHA256.hexDigest(Array(repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func incrementalEqualsOneShot() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for split in [0, 1, 55, 56, 63, 64, 65, 999] {
            var hasher = SHA256()
            hasher.update(bytes[..<split])
            hasher.update(bytes[split...])
            #expect(hasher.finalize() == SHA256.hash(bytes), "split at \(split)")
        }
    }

    @Test func paddingBoundaries() {
        // Lengths around the 55/56/64-byte padding edges, checked against Python's hashlib values.
        #expect(
            SHA256.hexDigest(Array(repeating: UInt8(0), count: 55))
                == "02779466cdec163811d078815c633f21901413081449002f24aa3e80f0b88ef7")
        #expect(
            SHA256.hexDigest(Array(repeating: UInt8(0), count: 56))
                == "d4817aa5497628e7c77e6b606107042bbba3130888c5f47a375e6179be789fbb")
        #expect(
            SHA256.hexDigest(Array(repeating: UInt8(0), count: 64))
                == "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b")
    }
}

/// libcrypto's constant-time comparison, as the key check and the signed links use it.
@Suite struct ConstantTimeTests {
    @Test func equalOnlyForTheSameBytesOfTheSameLength() {
        #expect(ConstantTime.equal([1, 2, 3], [1, 2, 3]))
        #expect(ConstantTime.equal([], []))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2]))
        #expect(!ConstantTime.equal([0], []))
        let digest = SHA256.hash(Array("key".utf8))
        var other = digest
        other[31] ^= 1
        #expect(ConstantTime.equal(digest, SHA256.hash(Array("key".utf8))) && !ConstantTime.equal(digest, other))
    }
}
