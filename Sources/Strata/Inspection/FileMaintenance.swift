// Compaction and copies of a Strata file by path, without the app's model classes: what
// `strata compact` and `strata copy` run. Both refuse while another process has the file open.
//
// Invariants:
// - A copy is written beside its destination and renamed into place only once complete and
//   flushed (StrataStorage's CopyTemporary); a compaction replaces the file the same way. A
//   failure leaves the source as it was and no destination.
// - The file's object format is checked before anything is written: a file of another format is
//   refused with its own error, never rewritten.
import Foundation
import StrataStorage

extension StrataFile {
    /// Writes the newest version densely to `destination` (which must not exist), encrypted
    /// with `encryptionKey` (nil: plain). `.alreadyOpen` while another process has the file open.
    public func writeCopy(to destination: String, encryptionKey: [UInt8]?) throws(Realm.Error) {
        if let key = encryptionKey, key.count != 64 {
            throw Realm.Error(.invalidEncryptionKey, "the encryption key is \(key.count) bytes; it must be 64")
        }
        let others = Set(core.file.openReaders().map(\.processID)).subtracting([Int(getpid())])
        if let other = others.min() {
            throw Realm.Error(.alreadyOpen, "'\(path)' is open in process \(other); close it first")
        }
        try Realm.Error.wrap { try core.file.writeCopy(toPath: destination, encryptionKey: encryptionKey) }
    }

    /// Compacts the file at `path` in place: the newest version rewritten densely, free and held
    /// pages given back. Returns the file's size before and after, in bytes.
    /// `.alreadyOpen` while any other handle or process has it open.
    public static func compact(path: String, encryptionKey: [UInt8]?) throws(Realm.Error) -> (before: Int, after: Int) {
        if StorageFile.isOpenAnywhere(path: path) {
            throw Realm.Error(.alreadyOpen, "'\(path)' is open in another process or handle; close it first")
        }
        // Opened read-only first: the checks (format, key, damage) write nothing. In a function of
        // its own, so that its handle (and the lock file's open marker) is gone before compacting.
        try checkOpens(path: path, encryptionKey: encryptionKey)
        let options = StorageOptions(path: path, encryptionKey: encryptionKey, mustExist: true)
        let file = try Realm.Error.wrap { try StorageFile.open(options) }
        defer { file.close() }
        file.setRelocator(ObjectRelocation())
        let before = try Realm.Error.wrap { try file.sizes().totalBytes }
        try Realm.Error.wrap { try file.compact() }
        let after = try Realm.Error.wrap { try file.sizes().totalBytes }
        return (before, after)
    }

    private static func checkOpens(path: String, encryptionKey: [UInt8]?) throws(Realm.Error) {
        let file = try StrataFile(path: path, encryptionKey: encryptionKey)
        file.close()
    }
}
