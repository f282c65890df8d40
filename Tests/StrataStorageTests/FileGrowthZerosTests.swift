// A growing file is written with zeros from one read-only mapping shared by the whole process
// (`GrowthZeros`), not from a heap buffer per growth: the mapping reads as zeros over its whole
// length, and the pages a growth adds past what a commit uses are zeros on disk.
import Foundation
import Testing
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

@Suite("File growth zeros")
struct FileGrowthZerosTests {
    @Test func theSharedChunkIsZerosOverItsWholeLength() {
        let bytes = UnsafeRawBufferPointer(start: GrowthZeros.chunk, count: GrowthZeros.pages * PageLayout.pageSize)
        #expect(bytes.allSatisfy { $0 == 0 })
    }

    @Test(arguments: [Durability.full, .unsafe])
    func pagesAGrowthAddsAreZerosOnDisk(durability: Durability) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        let file = try StorageFile.open(StorageOptions(path: path, durability: durability))
        defer { file.close() }
        var sizes: [Int] = []
        for round in 0..<3 {
            let txn = try file.beginWrite()
            for i in 0..<300 {
                let (_, payload) = try txn.allocatePage()
                payload.initializeMemory(as: UInt8.self, repeating: UInt8(1 + (round * 300 + i) % 250), count: 64)
            }
            _ = try txn.commit()
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let size = try #require(attributes[.size] as? Int)
            sizes.append(size)
            // Each commit grows the file by at least 1 MiB past what it needs, in whole MiB steps;
            // the last pages of the file are ones no commit has written yet.
            #expect(size % (GrowthZeros.pages * PageLayout.pageSize) == 0)
            let tail = 16 * PageLayout.pageSize
            let fd = open(path, O_RDONLY)
            #expect(fd >= 0)
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0xAA, count: tail)
            let read = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, tail, off_t(size - tail)) }
            #expect(read == tail)
            #expect(buffer.allSatisfy { $0 == 0 }, "round \(round): the file's last pages are zeros")
        }
        #expect(sizes == sizes.sorted() && sizes.last! > sizes.first!, "the file grew: \(sizes)")
    }
}
