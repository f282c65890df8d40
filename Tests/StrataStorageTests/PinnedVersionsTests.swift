// PinnedVersions (the per-process reader pins) against a dictionary model: random pins and unpins
// must leave the same versions, in ascending order, with the same "new"/"gone" answers.
import Testing
@testable import StrataStorage

@Suite("Pinned versions")
struct PinnedVersionsTests {
    @Test(arguments: [1, 2, 3, 4])
    func matchesADictionaryModel(seed: UInt64) {
        var rng = SplitMix(seed: seed)
        var pins = PinnedVersions()
        var model: [UInt64: Int] = [:]
        for _ in 0..<5_000 {
            let version = 100 + rng.next() % 12
            switch rng.next() % 5 {
            case 0, 1:
                #expect(pins.pin(version) == (model[version] == nil))
                model[version, default: 0] += 1
            case 2, 3:
                let gone = model[version] == 1
                #expect(pins.unpin(version) == gone)
                if let n = model[version] { model[version] = n > 1 ? n - 1 : nil }
            default:
                pins.removeAll(of: version)
                model[version] = nil
            }
            #expect(pins.versions == model.keys.sorted())
            #expect(pins.count == model.count)
            #expect(pins.isEmpty == model.isEmpty)
            #expect(pins.contains(version) == (model[version] != nil))
        }
    }

    @Test func unpinningAnUnpinnedVersionChangesNothing() {
        var pins = PinnedVersions()
        pins.pin(7)
        #expect(pins.unpin(8) == false)
        #expect(pins.versions == [7])
        pins.pin(7)
        #expect(pins.unpin(7) == false)
        #expect(pins.unpin(7) == true)
        #expect(pins.isEmpty)
    }
}

/// A small deterministic generator (SplitMix64) for the model test.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
