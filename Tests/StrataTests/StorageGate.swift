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
}
