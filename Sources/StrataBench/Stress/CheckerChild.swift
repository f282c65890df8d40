// The parent's side of a check: runs `strata-bench stress-check` on a store directory in a child
// process with a deadline, so that an engine that crashes or hangs while recovering is counted
// (`CheckOutcome.crashed`, `.hung`) instead of taking the harness down.

import Foundation

public enum CheckerChild {
    /// The arguments of `stress-check` for `stressCase` on `directory`.
    public static func arguments(_ stressCase: StressCase, directory: String) -> [String] {
        ["stress-check", "--engine", stressCase.engine.rawValue, "--durability", stressCase.durability.rawValue,
         "--encryption", stressCase.encryption.rawValue, "--dir", directory]
    }

    /// The line that replays a check by hand (printed with a kept reproducer).
    public static func replayCommand(_ stressCase: StressCase, directory: String) -> String {
        (["strata-bench"] + arguments(stressCase, directory: directory)).map(shellQuoted).joined(separator: " ")
    }

    static func shellQuoted(_ word: String) -> String {
        word.allSatisfy({ $0.isLetter || $0.isNumber || "-_./=:".contains($0) }) && !word.isEmpty
            ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Checks the store in `directory`. `scratch` is a directory for the child's output files.
    /// `environment` is added to the child's; `timeout` in seconds.
    public static func check(_ stressCase: StressCase, directory: String, scratch: String, executable: String,
                             environment: [String: String] = [:], timeout: Double) throws -> CheckOutcome {
        let out = (scratch as NSString).appendingPathComponent("check.json")
        let err = (scratch as NSString).appendingPathComponent("check.stderr")
        let started = Date()
        let child = try ChildProcess(executable: executable, arguments: arguments(stressCase, directory: directory),
                                     environment: environment, stdout: out, stderr: err)
        var exit = child.wait(timeout: timeout)
        if exit == .running {
            child.kill()
            return .hung(seconds: Date().timeIntervalSince(started))
        }
        if case .signaled(let signal) = exit { return .crashed(signal: signal) }
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        let errors = ((try? String(contentsOfFile: err, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        // 0: intact; 1: the report says what is wrong. Anything else is the checker's own failure.
        guard case .exited(let status) = exit, status == 0 || status == 1 else {
            exit = child.wait()
            return .broken("exit \(exit), stderr: \(QuotedInput.clip(errors))")
        }
        do {
            return .checked(try CheckReport.parse(text))
        } catch let error as BenchError {
            return .broken("\(error.message); stderr: \(QuotedInput.clip(errors))")
        }
    }
}
