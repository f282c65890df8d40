// ReadTransaction.duplicate(): a second reader of the same version, pinned on its own, so a
// version can be handed from one reader to another without a moment where nothing pins it.
import Foundation
import Testing
@testable import StrataStorage

@Suite("Read transaction duplicates")
struct ReadDuplicateTests {
    private func commit(_ file: StorageFile, marker: UInt64) throws {
        let txn = try file.beginWrite()
        txn.roots[0] = marker
        _ = try txn.commit()
    }

    @Test func aDuplicateKeepsItsVersionPinnedAfterTheOriginalEnds() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file()))
        defer { file.close() }
        try commit(file, marker: 7)
        let original = try file.beginRead()
        let copy = try original.duplicate()
        try commit(file, marker: 8)
        original.end()
        #expect(copy.version == original.version && copy.roots[0] == 7)
        #expect(file.core.pinnedVersions() == [original.version], "the duplicate still pins the version")
        copy.end()
        #expect(file.core.pinnedVersions().isEmpty)
    }

    @Test func anEndedReaderCannotBeDuplicated() throws {
        let dir = TemporaryDirectory()
        let file = try StorageFile.open(StorageOptions(path: dir.file()))
        defer { file.close() }
        let reader = try file.beginRead()
        reader.end()
        #expect(throws: StorageError.self) { try reader.duplicate() }
    }
}
