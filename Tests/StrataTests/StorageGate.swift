// End-to-end suites need StrataStorage's real page file and trees. Until the storage branches
// are merged the storage module is a stub whose methods throw, and those suites are disabled by
// this condition (they run, and must pass, as soon as a real StorageFile opens).
import Foundation
import StrataStorage

enum StorageGate {
    static let isReal: Bool = {
        guard let f = try? StorageFile.open(StorageOptions(path: "gate-\(UUID().uuidString)", durability: .memOnly)) else { return false }
        f.close()
        return true
    }()

    /// Whether StorageFile.writeCopy/compact are implemented (a later storage milestone).
    static let hasCompaction: Bool = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("strata-gate-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        guard let f = try? StorageFile.open(StorageOptions(path: dir.appendingPathComponent("a").path, durability: .unsafe)) else { return false }
        defer { f.close() }
        do {
            try f.writeCopy(toPath: dir.appendingPathComponent("b").path, encryptionKey: nil)
            return true
        } catch let e as StorageError where e.code == .invalidState && e.message.contains("not implemented") {
            return false
        } catch {
            return true
        }
    }()
}
