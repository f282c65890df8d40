// A bitmap of pages whose checksum (or authentication tag) has been verified since they were last
// written, so a page is verified once per load rather than on every access.
//
// Invariants:
// - Bit p set ⇒ the bytes of page p visible through the page space are the ones a commit wrote and
//   that verified. The writer sets the bit for pages it writes; it clears nothing else because a
//   page is rewritten only when no reader of this process can see it.
// - Seeing another process's commit clears the whole map (that process may have rewritten pages).
// - The memory is reserved with mmap(MAP_NORESERVE): untouched words cost nothing, so the map can
//   cover the whole reserved range without a resize that would race with readers.

import Synchronization
#if canImport(Glibc)
import Glibc
#endif

final class VerifiedPages: @unchecked Sendable {
    // @unchecked: every word is accessed only through Atomic operations.
    private let words: UnsafeMutablePointer<Atomic<UInt64>>
    private let wordCount: Int
    private let byteCount: Int

    init(capacityPages: Int) throws(StorageError) {
        wordCount = (capacityPages + 63) / 64
        byteCount = wordCount * 8
        let raw = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let raw, raw != MAP_FAILED else {
            throw StorageError(.io, "cannot reserve the verified-page map: \(errnoText(errno))")
        }
        // Zero-filled anonymous memory is a valid representation of Atomic<UInt64>(0).
        words = raw.bindMemory(to: Atomic<UInt64>.self, capacity: wordCount)
    }

    deinit { munmap(UnsafeMutableRawPointer(words), byteCount) }

    /// The map as a plain value (no reference count to touch), for the writer's hot paths; valid
    /// while the map lives.
    var view: View { View(words: words, wordCount: wordCount) }

    struct View {
        let words: UnsafeMutablePointer<Atomic<UInt64>>
        let wordCount: Int

        @inline(__always)
        func contains(_ page: Int) -> Bool {
            let word = page >> 6
            guard word < wordCount else { return false }
            return words[word].load(ordering: .acquiring) & (1 << UInt64(page & 63)) != 0
        }
    }

    @inline(__always)
    func contains(_ page: Int) -> Bool {
        let word = page >> 6
        guard word < wordCount else { return false }
        return words[word].load(ordering: .acquiring) & (1 << UInt64(page & 63)) != 0
    }

    @inline(__always)
    func insert(_ page: Int) {
        let word = page >> 6
        guard word < wordCount else { return }
        words[word].bitwiseOr(1 << UInt64(page & 63), ordering: .releasing)
    }

    @inline(__always)
    func remove(_ page: Int) {
        let word = page >> 6
        guard word < wordCount else { return }
        words[word].bitwiseAnd(~(1 << UInt64(page & 63)), ordering: .releasing)
    }

    /// Forgets every page below `pageCount`.
    func removeAll(below pageCount: Int) {
        let n = min(wordCount, (pageCount + 63) / 64)
        for i in 0..<n { words[i].store(0, ordering: .releasing) }
    }
}
