// A word shared by probe processes through a mapped file: how the `exclusive` command sees two
// writers inside write transactions at once (it never relies on the lock it checks).

import StrataStorage
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

final class SharedCounter {
    private let word: UnsafeMutablePointer<Atomic<UInt64>>

    /// Maps the first 8 bytes of `path` (which must exist and be at least 8 bytes long).
    init(path: String) throws {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError(.notFound, "cannot open the counter file", path: path) }
        defer { close(fd) }
        let raw = mmap(nil, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let raw, raw != MAP_FAILED else { throw StorageError(.io, "cannot map the counter file", path: path) }
        word = raw.bindMemory(to: Atomic<UInt64>.self, capacity: 1)
    }

    /// Adds one; returns the value before.
    func enter() -> UInt64 { word[0].wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue }

    func leave() { word[0].wrappingSubtract(1, ordering: .sequentiallyConsistent) }
}
