// The fuzz targets' committed inputs, replayed in the normal test suite: every seed corpus
// (Fuzz/Corpus/<target>) and every input that once broke an invariant (Fuzz/Regressions/<target>)
// goes through the same `run` libFuzzer calls, so a regression fails `swift test` without a fuzzer
// build. Each target also runs a few hundred generated inputs of its own, so that an empty corpus
// still exercises it.
import Foundation
import Testing
import StrataFuzz

@Suite("fuzz corpora and regressions")
struct FuzzReplayTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test(arguments: FuzzTargets.names)
    func replay(target name: String) throws {
        let target = try #require(FuzzTargets.named(name))
        let folders = ["Corpus", "Regressions"].map { "\(Self.root)/Fuzz/\($0)/\(name)" }
        let outcome = Replay.run(target, paths: folders)
        for (file, failure) in outcome.failures { Issue.record("\(file): \(failure)") }
        #expect(outcome.inputs > 0, "no committed inputs for \(name) under \(folders)")
    }

    /// Inputs no corpus holds: pseudo-random bytes of every length up to 64, fixed seed.
    @Test(arguments: FuzzTargets.names.filter { $0 != "file" && $0 != "bench-history" })
    func randomInputs(target name: String) throws {
        let target = try #require(FuzzTargets.named(name))
        var state: UInt64 = 0x5EED_F022
        for length in 0..<200 {
            let bytes: [UInt8] = (0..<(length % 65)).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 33)
            }
            do { try target.run(bytes) } catch { Issue.record("\(bytes): \(error)") }
        }
    }
}
