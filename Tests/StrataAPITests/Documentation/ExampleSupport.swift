// What the documentation examples' tests share: a temporary directory per test, in which the
// examples' relative file paths resolve (never the process's current directory).
import Foundation

/// A fresh directory, removed with everything in it when the value goes away.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// `path` inside the directory.
    func file(_ path: String) -> URL { url.appendingPathComponent(path) }

    deinit { try? FileManager.default.removeItem(at: url) }
}
