// What is at a history path, found out without changing anything there, and the read-only
// connection that the reading verbs use.
//
// Invariants:
// - `check` never writes: not the file, and no `-wal` or `-shm` file beside it. A plain read-only
//   SQLite connection is not enough for that: on a file in WAL mode (every history is) it creates
//   both companions, and cannot remove them when it closes. So a file without companions is read
//   as immutable (`?immutable=1`: no locks, no WAL, no shared memory), and a file with them (a
//   writer has it open, or left them) by an ordinary read-only connection, which needs them and
//   finds them there.
// - A file is a history when it is a regular file, starts with SQLite's header, passes
//   `quick_check`, carries `HistorySchema.applicationID` and a schema this build knows. An absent or
//   empty file is a history not yet created; the empty table of applied migrations is one being
//   created by another process right now. Anything else is `BenchError(.invalidHistory)` saying
//   the file was left untouched, which is then true byte for byte.

import Foundation
import GRDB

enum HistoryFile {
    /// What `check` found.
    enum State: Sendable, Equatable {
        case absent, empty, beingCreated, olderSchema, history
    }

    static let sqliteMagic = Array("SQLite format 3\u{0}".utf8)

    /// What is at `path`; throws unless it is absent, empty, or a sound history of a schema this
    /// build knows (see the invariants).
    static func check(_ path: String) throws -> State {
        // A verdict reached while another process wrote the file (creating a history writes its
        // first pages in rollback mode, under a `-journal`, before it switches to WAL) may describe
        // a half-written file: an immutable read then meets "database disk image is malformed".
        // Such a verdict is taken again once the file holds still; a file that is really damaged
        // does not change and is reported as before.
        var attempt = 0
        while true {
            let before = FileMotion(path)
            do {
                return try inspect(path)
            } catch let error as BenchError where error.code == .invalidHistory {
                let after = FileMotion(path)
                attempt += 1
                guard attempt < FileMotion.attempts, before != after || after.journal else { throw error }
                usleep(FileMotion.pauseMicroseconds)
            }
        }
    }

    /// What `check` found, read once.
    private static func inspect(_ path: String) throws -> State {
        var status = stat()
        guard lstat(path, &status) == 0 else { return .absent }
        if let kind = OutputFiles.nonRegularKind(path) {
            throw BenchError(.invalidHistory, "\(kind), not a history database", path: path)
        }
        guard status.st_size > 0 else { return .empty }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw BenchError(.io, "cannot read the history database", path: path)
        }
        let head = (try? handle.read(upToCount: sqliteMagic.count)) ?? Data()
        try? handle.close()
        guard Array(head) == sqliteMagic else {
            throw BenchError(.invalidHistory, "not a SQLite database, so not a strata-bench history (left untouched)", path: path)
        }
        do {
            let queue = try openReadOnly(path)
            defer { try? queue.close() }
            return try queue.read { db -> State in
                let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                guard check == ["ok"] else {
                    let found = check.prefix(3).map { QuotedInput.clip($0) }.joined(separator: "; ")
                    throw BenchError(.invalidHistory, "damaged: \(found) (left untouched)", path: path)
                }
                let application = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                if application == 0 && tables.isEmpty { return .empty }
                // Another process is creating this history right now: its migrator commits the
                // empty table of applied migrations before the first migration (which sets the
                // application id). Nothing else can have written exactly that; the migrator here
                // waits for the other one and finds the schema complete.
                if application == 0 && tables == ["grdb_migrations"],
                   try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations") == 0 {
                    return .beingCreated
                }
                guard application == HistorySchema.applicationID else {
                    let names = tables.prefix(5).map { QuotedInput.clip($0) }.joined(separator: ", ")
                    throw BenchError(.invalidHistory, "a SQLite database that strata-bench did not write (tables: \(names)); left untouched", path: path)
                }
                if try HistorySchema.migrator.hasBeenSuperseded(db) {
                    let applied = try HistorySchema.migrator.appliedIdentifiers(db).sorted().map { QuotedInput.clip($0) }
                    throw BenchError(.invalidHistory, "written by a newer strata-bench (schema \(applied.joined(separator: ", "))); left untouched", path: path)
                }
                guard try HistorySchema.migrator.hasCompletedMigrations(db) else {
                    // The writing verbs upgrade it; the reading ones cannot read it as it is.
                    return .olderSchema
                }
                return .history
            }
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError(.invalidHistory, "damaged or unreadable: \(HistoryStore.describe(error)) (left untouched)", path: path)
        }
    }

    /// What shows that another process is writing a history file: its size and modification
    /// time, its WAL's size, and a rollback journal beside it.
    struct FileMotion: Equatable {
        static let attempts = 100
        static let pauseMicroseconds: UInt32 = 10_000

        var size: Int64 = -1
        var modified: Int64 = -1
        var walSize: Int64 = -1
        var journal = false

        init(_ path: String) {
            var status = stat()
            if lstat(path, &status) == 0 {
                size = Int64(status.st_size)
                modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
            }
            if lstat(path + "-wal", &status) == 0 { walSize = Int64(status.st_size) }
            journal = lstat(path + "-journal", &status) == 0
        }
    }

    /// A read-only connection to `path` that creates nothing beside it (see the invariants).
    static func openReadOnly(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(HistoryStore.busyTimeout)
        let companions = ["-wal", "-shm"].contains { suffix in
            var status = stat()
            return lstat(path + suffix, &status) == 0
        }
        guard !companions else { return try DatabaseQueue(path: path, configuration: configuration) }
        guard let uri = immutableURI(path) else {
            throw BenchError(.invalidHistory, "this SQLite library does not open files by URI, so the history cannot be read without writing beside it (left untouched)", path: path)
        }
        return try DatabaseQueue(path: uri, configuration: configuration)
    }

    /// `file:` URI of `path` opened immutable, or nil when the SQLite library linked does not
    /// read URIs (it would take the URI for a file name).
    static func immutableURI(_ path: String) -> String? {
        guard acceptsURIs else { return nil }
        let absolute = OutputFiles.canonicalPath(path)
        // '?', '#' and '%' end or escape a URI's path; everything outside the path set is escaped.
        guard let escaped = absolute.addingPercentEncoding(withAllowedCharacters: pathCharacters) else { return nil }
        return "file://" + escaped + "?mode=ro&immutable=1"
    }

    static let pathCharacters: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return allowed
    }()

    /// Whether SQLite reads `file:` names as URIs (built with SQLITE_USE_URI, as Debian's is).
    static let acceptsURIs: Bool = {
        guard let queue = try? DatabaseQueue() else { return false }
        return (try? queue.read { try Bool.fetchOne($0, sql: "SELECT sqlite_compileoption_used('USE_URI')") }) == true
    }()
}
