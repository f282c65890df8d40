// The file a `strata` verb works on, looked at before anything opens it.
//
// - Only a regular file (or a missing path, for `import`) is opened: opening a FIFO read-only
//   blocks until some other process opens it for writing, and a device or socket is no Strata
//   file either. `stat` reads the type without opening anything, so a verb never hangs there; the
//   error is the one the library gives such a path (`.fileAccess`).
// - An import into a missing path creates the file and its companions (`.lock`); when the import
//   fails, `Creation.undo()` removes exactly the files that were not there before.
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Strata

public enum TargetFile {
    /// Throws `.fileAccess` when `path` exists and is not a regular file (a symbolic link is
    /// followed). A missing path passes: the verb's own open reports it.
    public static func check(_ path: String) throws(ToolError) {
        var status = stat()
        guard stat(path, &status) == 0 else { return }
        let kind: String
        switch status.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFIFO: kind = "a FIFO (named pipe)"
        case S_IFDIR: kind = "a directory"
        case S_IFCHR, S_IFBLK: kind = "a device"
        case S_IFSOCK: kind = "a socket"
        default: kind = "not a regular file"
        }
        throw ToolError(Realm.Error(.fileAccess, "'\(path)' is not a regular file: it is \(kind)"), path: path)
    }

    /// What an import may create at `path`: recorded before, undone after a failure.
    public struct Creation {
        let path: String
        /// Nil when the file existed: nothing is removed then.
        let companionsBefore: Set<String>?

        public init(path: String) {
            self.path = path
            var status = stat()
            companionsBefore = lstat(path, &status) == 0 ? nil : Set(TargetFile.companions(of: path))
        }

        /// Removes the file and the companions that appeared since `init`, when the file did not
        /// exist then.
        public func undo() {
            guard let companionsBefore else { return }
            for name in TargetFile.companions(of: path) where !companionsBefore.contains(name) { unlink(name) }
            unlink(path)
        }
    }

    /// The paths beside `path` whose names extend its own (`<name>.lock`, `<name>.compact`, …).
    static func companions(of path: String) -> [String] {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let prefix = url.lastPathComponent + "."
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix(prefix) }.map { directory + "/" + $0 }
    }
}
