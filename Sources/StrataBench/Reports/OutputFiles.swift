// Where a run's results go: checked before the first case, written so that nothing but a regular
// file is ever replaced, and never lost to a late I/O error.
//
// Invariants:
// - `check` refuses, before any case runs: a target that exists and is not a regular file
//   (symbolic link, directory, FIFO, device, socket), a target whose directory cannot be created
//   or written (probed by creating and removing a file there: permission bits do not stop root,
//   /proc does), and the same file named twice.
// - `write` puts the text in a temporary file beside the target and renames it over the target
//   only if the target is still absent or a regular file (a rename replaces whatever the name
//   points at: a device node, a symbolic link).
// - `writeKeeping` never drops the text: if the target cannot be written, the text goes to a new
//   file in the temporary directory, and the outcome names it.

import Foundation

public enum OutputFiles {
    /// A file the run will write, with the flag that named it (for messages).
    public struct Target: Sendable {
        public var flag: String
        public var path: String
        public init(flag: String, path: String) {
            self.flag = flag
            self.path = path
        }
    }

    /// Checks every target (see the invariants); throws `invalidOption` naming the flag and path.
    public static func check(_ targets: [Target]) throws {
        var seen: [String: Target] = [:]
        for target in targets {
            let canonical = canonicalPath(target.path)
            if let earlier = seen[canonical] {
                throw BenchError(.invalidOption, "\(target.flag) \(target.path): the same file as \(earlier.flag) \(earlier.path); give each output its own path")
            }
            seen[canonical] = target
            if let kind = nonRegularKind(target.path) {
                throw BenchError(.invalidOption, "\(target.flag) \(target.path): \(kind); refusing to replace it (name a regular file or a new path)")
            }
            let directory = parentDirectory(target.path)
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw BenchError(.invalidOption, "\(target.flag) \(target.path): cannot create the directory \(directory): \(reason(error))")
            }
            if let problem = probeWritable(directory) {
                throw BenchError(.invalidOption, "\(target.flag) \(target.path): cannot write in \(directory): \(problem)")
            }
        }
    }

    /// Writes `text` to `path` (creating its directory) through a temporary file and a rename;
    /// refuses a target that is not a regular file. Throws `BenchError(.io)`.
    public static func write(_ text: String, to path: String) throws {
        if let kind = nonRegularKind(path) {
            throw BenchError(.io, "\(kind); refusing to replace it", path: path)
        }
        let directory = parentDirectory(path)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw BenchError(.io, "cannot create the directory \(directory): \(reason(error))", path: path)
        }
        let name = (path as NSString).lastPathComponent
        let temporary = (directory as NSString).appendingPathComponent(".\(name).\(getpid()).\(UUID().uuidString.prefix(8)).tmp")
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary), options: .withoutOverwriting)
        } catch {
            throw BenchError(.io, "cannot write: \(reason(error))", path: path)
        }
        // Checked again just before the rename: the target may have changed during the run.
        if let kind = nonRegularKind(path) {
            unlink(temporary)
            throw BenchError(.io, "\(kind) now; refusing to replace it", path: path)
        }
        if rename(temporary, path) != 0 {
            let problem = String(cString: strerror(errno))
            unlink(temporary)
            throw BenchError(.io, "cannot write: \(problem)", path: path)
        }
    }

    /// Where a text ended up.
    public enum Outcome: Sendable {
        /// At the path asked for.
        case written(path: String)
        /// The path asked for failed (`error`); the text is at `fallback`.
        case rescued(fallback: String, error: BenchError)
        /// Both failed; the caller still holds the text (print it).
        case unwritten(error: BenchError, fallbackError: BenchError)
    }

    /// `write`, and if that fails, the same text to a new file in `fallbackDirectory`.
    public static func writeKeeping(_ text: String, to path: String,
                                    fallbackDirectory: String = NSTemporaryDirectory()) -> Outcome {
        do {
            try write(text, to: path)
            return .written(path: path)
        } catch {
            let failure = error as? BenchError ?? BenchError(.io, "\(error)", path: path)
            let name = (path as NSString).lastPathComponent
            let fallback = (fallbackDirectory as NSString)
                .appendingPathComponent("strata-bench-rescued-\(getpid())-\(UUID().uuidString.prefix(8))-\(name)")
            do {
                try write(text, to: fallback)
                return .rescued(fallback: fallback, error: failure)
            } catch {
                return .unwritten(error: failure, fallbackError: error as? BenchError ?? BenchError(.io, "\(error)", path: fallback))
            }
        }
    }

    // MARK: - File system facts

    /// Why `path` must not be replaced, or nil when it is absent or a regular file.
    static func nonRegularKind(_ path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFLNK: return "is a symbolic link"
        case S_IFDIR: return "is a directory"
        case S_IFIFO: return "is a FIFO (named pipe)"
        case S_IFCHR: return "is a character device"
        case S_IFBLK: return "is a block device"
        case S_IFSOCK: return "is a socket"
        default: return "is not a regular file"
        }
    }

    /// The directory a path's file lives in ("." for a bare name).
    static func parentDirectory(_ path: String) -> String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    /// Absolute, with the existing directory part resolved through symbolic links, so that two
    /// spellings of one file compare equal.
    static func canonicalPath(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let standardized = (absolute as NSString).standardizingPath
        let directory = (standardized as NSString).deletingLastPathComponent
        let name = (standardized as NSString).lastPathComponent
        guard let resolved = realpath(directory, nil) else { return standardized }
        defer { free(resolved) }
        return (String(cString: resolved) as NSString).appendingPathComponent(name)
    }

    /// Creates and removes a file in `directory`; nil when that worked, else why not.
    static func probeWritable(_ directory: String) -> String? {
        let probe = (directory as NSString).appendingPathComponent(".strata-bench-probe-\(getpid())-\(UUID().uuidString.prefix(8))")
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        close(descriptor)
        unlink(probe)
        return nil
    }

    static func reason(_ error: Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain, let code = POSIXErrorCode(rawValue: Int32(underlying.code)) {
            return String(cString: strerror(code.rawValue))
        }
        return (error as NSError).localizedDescription
    }
}
