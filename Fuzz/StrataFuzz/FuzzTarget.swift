// What every fuzz target is: a name, a function that runs one input and throws `FuzzFailure` when
// the target's invariant is broken, and the seeds its corpus starts from. The same `run` serves
// libFuzzer (Fuzz/strata-fuzz, built with -sanitize=fuzzer) and the replay of the committed
// corpora and regressions in the normal test suite (Tests/StrataFuzzTests), so an input that once
// failed stays tested without a fuzzer build.
//
// A crash, a trap or a hang is not caught here: under libFuzzer it is the finding itself, and in
// the test suite it fails the test process.
import Foundation

/// A broken invariant: what was expected and what happened, for the report and the regression.
public struct FuzzFailure: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

public protocol FuzzTarget {
    /// The name `scripts/fuzz` and the corpus folders use (Fuzz/Corpus/<name>, Fuzz/Regressions/<name>).
    static var name: String { get }
    /// The invariant, in one sentence (printed by `strata-fuzz list`).
    static var invariant: String { get }
    /// Runs one input; throws when the invariant does not hold for it.
    static func run(_ input: [UInt8]) throws(FuzzFailure)
    /// The seed corpus that cannot be written by hand (files); text seeds are committed as written.
    static func seeds() throws(FuzzFailure) -> [String: [UInt8]]
}

extension FuzzTarget {
    public static func seeds() throws(FuzzFailure) -> [String: [UInt8]] { [:] }
}

public enum FuzzTargets {
    public static var all: [any FuzzTarget.Type] {[
        QueryParserTarget.self, QueryOracleTarget.self, FileBytesTarget.self, ImportTarget.self,
        BenchCSVTarget.self, BenchHistoryTarget.self,
    ]}

    /// The targets' names. (Not `all.map(\.name)`: a key path to a static property through an
    /// existential metatype crashes this compiler, Swift 6.3.1's SILGen.)
    public static var names: [String] {
        var names: [String] = []
        for target in all { names.append(target.name) }
        return names
    }

    public static func named(_ name: String) -> (any FuzzTarget.Type)? { all.first { $0.name == name } }
}

/// Runs every file of the given folders (recursively, in name order) through a target.
public enum Replay {
    public struct Outcome: Sendable {
        public var inputs = 0
        public var failures: [(file: String, failure: FuzzFailure)] = []
    }

    public static func run(_ target: any FuzzTarget.Type, paths: [String]) -> Outcome {
        var outcome = Outcome()
        for file in files(paths) {
            guard let data = FileManager.default.contents(atPath: file) else {
                outcome.failures.append((file, FuzzFailure("cannot read the input")))
                continue
            }
            outcome.inputs += 1
            do { try target.run(Array(data)) } catch { outcome.failures.append((file, error)) }
        }
        return outcome
    }

    /// The regular files under `paths` (a path may itself be a file), skipping dot files such as
    /// .gitkeep.
    public static func files(_ paths: [String]) -> [String] {
        var found: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
            if !isFolder.boolValue { found.append(path); continue }
            let names = (FileManager.default.enumerator(atPath: path)?.allObjects as? [String]) ?? []
            for name in names.sorted() where !name.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
                var sub: ObjCBool = false
                let full = path + "/" + name
                if FileManager.default.fileExists(atPath: full, isDirectory: &sub), !sub.boolValue { found.append(full) }
            }
        }
        return found
    }
}
