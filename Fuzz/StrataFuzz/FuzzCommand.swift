// strata-fuzz's command line apart from libFuzzer's driver (Fuzz/strata-fuzz): listing the
// targets, writing generated seeds, replaying files.
import Foundation

public enum FuzzCommand {
    /// What the arguments ask for, with what `--target=<name>` names.
    public enum Request {
        case done(Int32)
        case target(any FuzzTarget.Type, paths: [String])
    }

    public static func parse(_ arguments: [String]) -> Request {
        if arguments.first == "--list" {
            for target in FuzzTargets.all { print("\(target.name): \(target.invariant)") }
            return .done(0)
        }
        if let seed = arguments.first, seed.hasPrefix("--seed=") {
            let name = String(seed.dropFirst("--seed=".count))
            guard let target = FuzzTargets.named(name), arguments.count == 2 else { return usage("unknown target or no folder: \(name)") }
            do {
                try FileManager.default.createDirectory(atPath: arguments[1], withIntermediateDirectories: true)
                let seeds = try target.seeds()
                for (name, bytes) in seeds { try Data(bytes).write(to: URL(fileURLWithPath: arguments[1] + "/" + name)) }
            } catch {
                return usage("cannot write the seeds: \(error)")
            }
            return .done(0)
        }
        guard let flag = arguments.first(where: { $0.hasPrefix("--target=") }),
              let target = FuzzTargets.named(String(flag.dropFirst("--target=".count))) else {
            return usage("no --target=<name> (one of \(FuzzTargets.names.joined(separator: ", ")))")
        }
        return .target(target, paths: arguments.filter { !$0.hasPrefix("-") })
    }

    /// Replays the files and prints each failure; the exit status.
    public static func replay(_ target: any FuzzTarget.Type, paths: [String]) -> Int32 {
        let outcome = Replay.run(target, paths: paths)
        for (file, failure) in outcome.failures { print("FAIL \(file): \(failure)") }
        print("\(target.name): \(outcome.inputs) inputs replayed, \(outcome.failures.count) failed")
        return outcome.failures.isEmpty ? 0 : 1
    }

    /// Runs one input; prints a broken invariant and aborts (libFuzzer keeps the input as a crash).
    public static func runOrAbort(_ target: any FuzzTarget.Type, _ input: [UInt8]) {
        do { try target.run(input) } catch {
            FileHandle.standardError.write(Data("strata-fuzz: invariant broken: \(error)\n".utf8))
            abort()
        }
    }

    static func usage(_ message: String) -> Request {
        FileHandle.standardError.write(Data("strata-fuzz: \(message)\n".utf8))
        return .done(64)
    }
}
