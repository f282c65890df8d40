// Which file system's rules turn a trace into crash states (`stress --fs-model`).
//
// `posix` is the strict model every portable engine must survive: a name (a created file, a
// rename, an unlink) is durable only once its directory is flushed. ALICE calls it the abstract
// persistence model; it is the default, because an engine that relies on more than it relies on
// one file system's habits.
//
// `ext4` adds what ext4's journal (data=ordered, the default) does: name changes are metadata,
// kept in the running journal transaction, and a flush that commits that transaction makes every
// earlier name change durable with it. `fsync` of a file always commits it; `fdatasync` commits
// it only when the file has a change its data depends on — a new size (a write past its durable
// end, a truncate, an allocation that grows it) or its own creation — and otherwise only writes
// the data (ext4_sync_file: jbd2_complete_transaction on i_sync_tid or i_datasync_tid). Data of
// other files is not made durable by it: writeback of ordered data is not a promise.

/// The file system a power-loss or io-error case is judged on (`--fs-model`).
public enum CrashFileSystem: String, CaseIterable, Sendable, Codable {
    /// A name is durable once its directory is flushed (the default).
    case posix
    /// ext4 with its journal: a flush that commits the journal makes earlier name changes durable.
    case ext4

    public var summary: String {
        switch self {
        case .posix: return "a name is durable once its directory is flushed (strict, portable; default)"
        case .ext4: return "ext4's journal: a file's fsync, or its fdatasync after it grew, also makes every earlier name change durable"
        }
    }
}
