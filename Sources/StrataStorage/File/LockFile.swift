// The companion lock file `<path>.lock`: cross-process writer lock and reader registry.
//
// Not implemented yet: only in-process coordination exists.

enum LockFile {
    static func isOpenByAnotherProcess(path: String) -> Bool { false }
}
