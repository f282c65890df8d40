// The durability model the crash states are built from, replayed over a trace record by record:
// what is durable after records 0..<k, and what is still pending.
//
// - A file's data changes (writes, mapped writes, ftruncate, fallocate, O_TRUNC) are durable once
//   that file is fsync'd or fdatasync'd after them; sync_file_range makes nothing durable (it
//   neither flushes the disk's cache nor the metadata). A write made durable on its own —
//   msync(MS_SYNC) over its range, an O_DSYNC/RWF_DSYNC write — also makes every change of that
//   file before it durable: fewer states than a disk could show, never an impossible one (a
//   pending older change applied after the durable newer one would undo it).
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
            let change = PendingChange(record: r.index, file: r.file,
                                       change: .write(offset: Int(r.offset), bytes: trace.slice(r)))
            pending.append(change)
            if r.flags.contains(.sync) { flush(r.file, through: pending.count) }
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
            let range = Int(r.offset)..<Int(r.offset + r.length)
            if let last = pending.lastIndex(where: { $0.file == r.file && $0.overlaps(range) }) {
                flush(r.file, through: last + 1)
            }
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

extension PendingChange {
    func overlaps(_ range: Range<Int>) -> Bool {
        guard case .write(let offset, let bytes) = change else { return false }
        return offset < range.upperBound && range.lowerBound < offset + bytes.count
    }
}
