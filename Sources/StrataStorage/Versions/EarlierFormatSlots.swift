// Retiring the meta slots of an earlier format once no open can need them.
//
// A build of format 4 that opens a file ignores the slots of format 5 and opens at the newest
// slot of its own format when there is one: a file that a later build has committed to once or
// twice would open there, silently without the later commits. So a commit of this build clears
// the format-4 slots it may: those of versions below the reuse horizon (FileCore.reuseHorizon),
// which a durable version's durable base already puts below anything open may choose (the floor,
// SlotChoice.swift). Once they are gone, a format-4 build refuses the file naming format 5.
//
// Invariants:
// - A slot is cleared only if it still holds that very earlier-format version when read under
//   the writer lock (another process may have written a newer meta there since).
// - Clearing is best effort and unflushed: a slot that survives a crash is one more the next
//   commit clears; it never affects which version this build opens.

#if canImport(Glibc)
import Glibc
#endif

/// A slot holding a meta of an earlier format, and the version in it.
struct EarlierFormatSlot: Equatable {
    var slot: Int
    var version: UInt64
}

extension FileCore {
    /// After writing the meta into `written`: forgets that slot, and clears the earlier-format
    /// slots of versions below the reuse horizon. Writer lock held.
    func retireEarlierFormatSlots(written: Int) {
        guard !earlierFormatSlots.isEmpty else { return }
        earlierFormatSlots.removeAll { $0.slot == written }
        let horizon = reuseHorizon()
        let retiring = earlierFormatSlots.filter { $0.version < horizon }
        guard !retiring.isEmpty else { return }
        earlierFormatSlots.removeAll { $0.version < horizon }
        let page = takeBuffer()
        defer { returnBuffer(page) }
        for slot in retiring {
            let offset = slot.slot * PageLayout.pageSize
            guard (try? preadFully(fd, page, PageLayout.pageSize, offset, path: path)) == PageLayout.pageSize,
                  case .success(let meta) = MetaState.decode(UnsafeRawPointer(page)),
                  meta.format < MetaLayout.formatVersion, meta.version == slot.version else { continue }
            page.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.pageSize)
            _ = try? pwriteFully(fd, page, PageLayout.pageSize, offset, path: path, counting: counters)
        }
    }
}
