// Rebuilding one crash state from a kept trace (`strata-bench stress-replay`): a failing
// power-loss state is kept as its trace plus its `CrashStateID`, and this rebuilds exactly that
// disk (the same content hash) into an empty directory, so the reproducer needs nothing but the
// kept files.

import Foundation

public enum CrashStateReplay {
    /// The arguments of `stress-replay` for one state.
    public static func arguments(_ stressCase: StressCase, trace: String, state: CrashStateID, out: String,
                                 fileSystem: CrashFileSystem = .posix) -> [String] {
        ["stress-replay", "--trace", trace, "--state", state.description, "--engine", stressCase.engine.rawValue,
         "--durability", stressCase.durability.rawValue, "--encryption", stressCase.encryption.rawValue,
         "--fs-model", fileSystem.rawValue, "--out", out]
    }

    /// The line printed with a kept crash state.
    public static func command(_ stressCase: StressCase, trace: String, state: CrashStateID, out: String,
                               fileSystem: CrashFileSystem = .posix) -> String {
        (["strata-bench"] + arguments(stressCase, trace: trace, state: state, out: out, fileSystem: fileSystem))
            .map(CheckerChild.shellQuoted).joined(separator: " ")
    }

    /// Rebuilds state `id` of the trace at `trace` into `out` (created if absent; must be empty).
    public static func materialise(trace: String, state id: CrashStateID, out: String,
                                   fileSystem: CrashFileSystem = .posix) throws -> CrashState {
        let parsed = try IOTrace(contentsOf: trace)
        guard id.crashPoint <= parsed.records.count else {
            throw BenchError(.invalidOption, "--state \(id): the trace has \(parsed.records.count) records", path: trace)
        }
        let state = CrashStateBuilder(trace: parsed, fileSystem: fileSystem).state(id)
        try StressFiles.makeDirectory(out)
        try state.materialise(into: out)
        return state
    }
}
