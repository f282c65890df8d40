// The durability model the crash states are built from, replayed over a trace record by record:
// what is durable after records 0..<k, and what is still pending.
//
// - A file's data changes (writes, mapped writes, ftruncate, fallocate, O_TRUNC) are durable once
//   that file is fsync'd or fdatasync'd after them; sync_file_range makes nothing durable (it
//   neither flushes the disk's cache nor the metadata).
// - A range made durable on its own — an O_DSYNC/RWF_DSYNC write, msync(MS_SYNC) — is what the
//   kernel does for it: it writes back the 4 KiB pages the range touches and flushes the disk's
//   cache. Every pending write of the file within those pages becomes durable there (the page
//   cache holds its bytes); its parts in other pages stay pending, so a crash may keep or lose
//   them, and a log written this way is checked against losing what it did not flush. A pending
//   resize or fallocate of the file before it makes the whole file durable instead: fewer
//   states than a disk could show, never an impossible one.
// - A name (a created file, a rename, an unlink) is durable once each directory it changed is
//   fsync'd after it. Pending name changes reach the disk as a prefix, in order, as a journaling
//   file system commits its metadata: a created file may be absent, a renamed one under its old
//   or its new name.
// - Failed operations did nothing. Files the writer found in place (snapshot records) are durable.
// - On `CrashFileSystem.ext4`, a flush that commits ext4's journal also makes every pending name
//   change durable, in order (CrashFileSystem.swift says when it commits it).

struct CrashModel: Sendable {
    let trace: IOTrace
    let fileSystem: CrashFileSystem
    /// Records 0..<position have been replayed.
    private(set) var position = 0
    /// Durable contents per file id.
    private(set) var durable: [UInt32: [UInt8]] = [:]
    /// Pending data changes, in trace order, all files together.
    private(set) var pending: [PendingChange] = []
    /// Durable names: root-relative path → file id.
    private(set) var names: [String: UInt32] = [:]
    /// Pending name changes, in trace order.
    private(set) var pendingNames: [PendingName] = []
    private var directories: Set<UInt32> = []

    init(trace: IOTrace, fileSystem: CrashFileSystem = .posix) {
        self.trace = trace
        self.fileSystem = fileSystem
    }

    /// Replays records up to (not including) `k`; `k` only grows.
    mutating func advance(to k: Int) {
        let end = min(k, trace.records.count)
        while position < end {
            replay(trace.records[position])
            position += 1
        }
    }

    private mutating func replay(_ r: IOTraceRecord) {
        guard !r.failed else { return }
        switch r.kind {
        case .snapshot:
            if r.flags.contains(.directory) {
                directories.insert(r.file)
            } else {
                durable[r.file] = Array(trace.slice(r))
                if let path = r.path { names[path] = r.file }
            }
        case .open:
            if r.flags.contains(.directory) { directories.insert(r.file) }
            if r.flags.contains(.created), let path = r.path {
                durable[r.file] = durable[r.file] ?? []
                pendingNames.append(PendingName(record: r.index, change: .create(path: path, file: r.file),
                                                waiting: [TracePath.parent(path)]))
            }
            if r.flags.contains(.truncated) { pending.append(PendingChange(record: r.index, file: r.file, change: .resize(0))) }
        case .write:
            let bytes = trace.slice(r)
            pending.append(PendingChange(record: r.index, file: r.file, change: .write(offset: Int(r.offset), bytes: bytes)))
            if r.flags.contains(.sync) { flushRange(r.file, Int(r.offset)..<(Int(r.offset) + bytes.count), through: pending.count) }
        case .truncate:
            pending.append(PendingChange(record: r.index, file: r.file, change: .resize(Int(r.length))))
        case .fallocate:
            // FALLOC_FL_KEEP_SIZE 1, PUNCH_HOLE 2, ZERO_RANGE 0x10 (collapse/insert: not modelled).
            let mode = r.aux
            pending.append(PendingChange(record: r.index, file: r.file, change: .allocate(
                offset: Int(r.offset), length: Int(r.length), zero: mode & 0x12 != 0, keepSize: mode & 1 != 0)))
        case .fsync, .fdatasync:
            if directories.contains(r.file) {
                if let path = r.path { flushDirectory(path) }
            } else {
                if fileSystem == .ext4 && (r.kind == .fsync || commitsJournalOnDataSync(r.file)) { commitAllNames() }
                flush(r.file, through: pending.count)
            }
        case .msync:
            // MS_SYNC = 4; MS_ASYNC schedules writeback and guarantees nothing.
            guard r.aux & 4 != 0 else { return }
            flushRange(r.file, Int(r.offset)..<Int(r.offset + r.length), through: pending.count)
        case .rename:
            guard let from = r.path, let to = r.newPath else { return }
            pendingNames.append(PendingName(record: r.index, change: .rename(from: from, to: to, exchange: r.aux & 2 != 0),
                                            waiting: [TracePath.parent(from), TracePath.parent(to)]))
        case .unlink:
            guard let path = r.path else { return }
            pendingNames.append(PendingName(record: r.index, change: .unlink(path: path), waiting: [TracePath.parent(path)]))
        case .close, .ack, .mmap, .munmap, .syncFileRange, .exit:
            break
        }
    }

    /// Makes the file's pending changes among `pending[0..<end]` durable, in order.
    private mutating func flush(_ file: UInt32, through end: Int) {
        var kept: [PendingChange] = []
        for (i, change) in pending.enumerated() {
            // In place: a large file is not copied per flush.
            if i < end && change.file == file { change.apply(to: &durable[file, default: []]) } else { kept.append(change) }
        }
        pending = kept
    }

    /// Makes durable what writing back the pages `range` touches makes durable: the parts of the
    /// file's pending writes among `pending[0..<end]` within those pages, in order; their parts
    /// outside stay pending. With a pending resize or fallocate of the file, the whole file.
    private mutating func flushRange(_ file: UInt32, _ range: Range<Int>, through end: Int) {
        let page = 4096
        let lower = range.lowerBound / page * page
        let upper = (range.upperBound + page - 1) / page * page
        if pending.prefix(end).contains(where: { $0.file == file && !$0.isWrite }) {
            flush(file, through: end)
            return
        }
        var kept: [PendingChange] = []
        for (i, change) in pending.enumerated() {
            guard i < end, change.file == file, case .write(let offset, let bytes) = change.change else {
                kept.append(change)
                continue
            }
            let from = max(offset, lower), to = min(offset + bytes.count, upper)
            guard from < to else {
                kept.append(change)
                continue
            }
            func piece(_ a: Int, _ b: Int) -> PendingChange {
                let start = bytes.startIndex + (a - offset)
                return PendingChange(record: change.record, file: file, change: .write(offset: a, bytes: bytes[start..<(start + b - a)]))
            }
            if offset < from { kept.append(piece(offset, from)) }
            piece(from, to).apply(to: &durable[file, default: []])
            if to < offset + bytes.count { kept.append(piece(to, offset + bytes.count)) }
        }
        pending = kept
    }

    /// ext4's fdatasync commits the journal when the file's data depends on a metadata change:
    /// its creation is still pending, or a pending change gives it a new size.
    private func commitsJournalOnDataSync(_ file: UInt32) -> Bool {
        if pendingNames.contains(where: { if case .create(_, let created) = $0.change { return created == file } else { return false } }) {
            return true
        }
        var size = durable[file]?.count ?? 0
        for change in pending where change.file == file {
            switch change.change {
            case .write(let offset, let bytes):
                if offset + bytes.count > size { return true }
            case .resize(let length):
                if length != size { return true }
                size = length
            case .allocate(let offset, let length, _, let keepSize):
                if !keepSize && offset + length > size { return true }
            }
        }
        return false
    }

    /// Every pending name change becomes durable, in order (a journal commit).
    private mutating func commitAllNames() {
        for name in pendingNames { name.apply(to: &names) }
        pendingNames = []
    }

    private mutating func flushDirectory(_ path: String) {
        var still: [PendingName] = []
        for var name in pendingNames {
            name.waiting.remove(path)
            if name.waiting.isEmpty { name.apply(to: &names) } else { still.append(name) }
        }
        pendingNames = still
    }
}
