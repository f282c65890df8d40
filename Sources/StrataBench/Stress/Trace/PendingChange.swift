// What a crash may or may not have kept: a file's data changes after its last flush, and the
// name changes (create, rename, unlink) not yet made durable by a flush of their directories.

/// A change to one file's data that no flush has made durable yet.
struct PendingChange: Sendable {
    enum Change: Sendable {
        case write(offset: Int, bytes: ArraySlice<UInt8>)
        /// ftruncate, or open with O_TRUNC (size 0).
        case resize(Int)
        /// fallocate: zeroes `length` bytes at `offset` (a punched hole or zeroed range), and
        /// grows the file to `offset + length` unless `keepSize`.
        case allocate(offset: Int, length: Int, zero: Bool, keepSize: Bool)
    }

    let record: Int
    let file: UInt32
    let change: Change

    var isWrite: Bool { if case .write = change { true } else { false } }

    /// The 512-byte sector boundaries strictly inside a write: where a torn write may stop.
    var tearPoints: [Int] {
        guard case .write(let offset, let bytes) = change else { return [] }
        let first = (offset / 512 + 1) * 512
        return stride(from: first, to: offset + bytes.count, by: 512).map { $0 - offset }
    }

    /// Applies the change (or its first `prefix` bytes, for a torn write) to `content`.
    func apply(to content: inout [UInt8], prefix: Int? = nil) {
        switch change {
        case .write(let offset, let bytes):
            let kept = bytes.prefix(prefix ?? bytes.count)
            if content.count < offset + kept.count {
                content.append(contentsOf: repeatElement(0, count: offset + kept.count - content.count))
            }
            content.replaceSubrange(offset..<(offset + kept.count), with: kept)
        case .resize(let size):
            if size < content.count { content.removeLast(content.count - size) }
            else { content.append(contentsOf: repeatElement(0, count: size - content.count)) }
        case .allocate(let offset, let length, let zero, let keepSize):
            let end = offset + length
            if !keepSize && content.count < end { content.append(contentsOf: repeatElement(0, count: end - content.count)) }
            if zero && offset < content.count {
                let upper = min(end, content.count)
                content.replaceSubrange(offset..<upper, with: repeatElement(0, count: upper - offset))
            }
        }
    }
}

/// A change of names under the root, durable once every directory in `waiting` is fsync'd.
struct PendingName: Sendable {
    enum Change: Sendable, Equatable {
        case create(path: String, file: UInt32)
        case rename(from: String, to: String, exchange: Bool)
        case unlink(path: String)
    }

    let record: Int
    let change: Change
    var waiting: Set<String>

    /// Applies the change to a path → file map (a directory rename moves what is under it).
    func apply(to names: inout [String: UInt32]) {
        switch change {
        case .create(let path, let file):
            if names[path] == nil { names[path] = file }
        case .unlink(let path):
            names[path] = nil
        case .rename(let from, let to, let exchange):
            var moved: [String: UInt32] = [:]
            var displaced: [String: UInt32] = [:]
            for (name, file) in names {
                if let target = TracePath.moved(name, from: from, to: to) {
                    moved[target] = file
                    names[name] = nil
                } else if exchange, let target = TracePath.moved(name, from: to, to: from) {
                    displaced[target] = file
                    names[name] = nil
                }
            }
            guard !moved.isEmpty || !displaced.isEmpty else { return }
            if !exchange {
                for name in names.keys where TracePath.moved(name, from: to, to: to) != nil { names[name] = nil }
            }
            names.merge(moved) { $1 }
            names.merge(displaced) { $1 }
        }
    }

    var summary: String {
        switch change {
        case .create(let path, _): "create \(path)"
        case .rename(let from, let to, let exchange): "\(exchange ? "exchange" : "rename") \(from)→\(to)"
        case .unlink(let path): "unlink \(path)"
        }
    }
}
