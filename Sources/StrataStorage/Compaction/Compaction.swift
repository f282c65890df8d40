// Compaction and copies of a page file.
//
// Not implemented yet: both entry points throw `.invalidState`.

extension FileCore {
    func compact() throws(StorageError) {
        throw StorageError(.invalidState, "compaction is not implemented yet", path: path)
    }

    func writeCopy(toPath destination: String, encryptionKey: [UInt8]?) throws(StorageError) {
        throw StorageError(.invalidState, "writeCopy is not implemented yet", path: destination)
    }
}
