// PinnedVersions (the per-process reader pins) against a dictionary model: random pins and unpins
// must leave the same versions, in ascending order, with the same "new"/"gone" answers.
import Testing
@testable import StrataStorage

@Suite("Pinned versions")
struct PinnedVersionsTests {
    @Test(arguments: [1, 2, 3, 4])
    func matchesADictionaryModel(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
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
