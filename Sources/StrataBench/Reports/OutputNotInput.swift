// An output never replaces one of the files the same command reads: `report RUN.csv --out
// RUN.csv` would turn the run's only copy into HTML.
//
// Invariants: two names are the same file when they resolve to the same canonical path (relative
// paths, '..', symbolic links in the directories or as the name itself) or, for files that exist,
// when they have the same device and inode (a hard link, a bind mount). The check runs before
// anything is written and throws `BenchError(.invalidOption)` naming both flags and paths.

import Foundation

extension OutputFiles {
    /// Throws if any of `outputs` is the same file as any of `inputs`.
    public static func checkNotInputs(_ outputs: [Target], inputs: [Target]) throws {
        for output in outputs {
            for input in inputs where sameFile(output.path, input.path) {
                throw BenchError(.invalidOption, "\(output.flag) \(output.path): the same file as \(input.flag) \(input.path), which this command reads; refusing to write over an input (name another output)")
            }
        }
    }

    /// Whether `first` and `second` name one file (see the invariants).
    static func sameFile(_ first: String, _ second: String) -> Bool {
        if let one = identity(first), let other = identity(second), one == other { return true }
        return resolvedPath(first) == resolvedPath(second)
    }

    /// Device and inode of the file `path` names, through symbolic links; nil when it is absent.
    static func identity(_ path: String) -> [UInt64]? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return [UInt64(status.st_dev), UInt64(status.st_ino)]
    }

    /// The path with every symbolic link resolved when the file exists, else `canonicalPath`.
    static func resolvedPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return canonicalPath(path) }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
