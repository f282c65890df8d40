// Which file a name reaches and which lock file it gets (Locking/FileIdentity.swift): every
// form of name that the path itself can resolve (symbolic links, dangling ones included, relative
// paths, `..`) gets the lock beside the file's canonical name; a hard-linked file gets the lock
// named after its identity, the same from each name.
import Testing
@testable import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

@Suite struct FileIdentityTests {
    @Test func aDanglingSymlinkResolvesToTheFileItWillCreate() throws {
        let dir = TemporaryDirectory()
        #expect(symlink(dir.file("target.strata"), dir.file("link.strata")) == 0)
        let canonical = FilePath.canonical(dir.file("target.strata"))
        #expect(FilePath.canonical(dir.file("link.strata")) == canonical)
        // Opening through the link creates the target, locked beside the target's name.
        let file = try StorageFile.openTyped(StorageOptions(path: dir.file("link.strata")))
        defer { file.close() }
        #expect(access(canonical + ".lock", F_OK) == 0)
        #expect(access(dir.file("link.strata") + ".lock", F_OK) != 0)
        // The same core from either name in this process.
        let direct = try StorageFile.openTyped(StorageOptions(path: dir.file("target.strata")))
        defer { direct.close() }
        #expect(direct.core === file.core)
    }

    @Test func relativeAndDotDotNamesShareTheCanonicalLock() throws {
        let dir = TemporaryDirectory()
        #expect(mkdir(dir.file("sub"), 0o755) == 0)
        let names = [dir.file("db.strata"), dir.file("sub/../db.strata"), dir.file("./sub/../db.strata")]
        let canonical = FilePath.canonical(names[0])
        for name in names { #expect(FilePath.canonical(name) == canonical, "\(name)") }
        #expect(LockLocation.candidates(forDataPath: names[1]).preferred.path == canonical + ".lock")
    }

    @Test func aHardLinkedFileIsLockedByItsIdentity() throws {
        let dir = TemporaryDirectory()
        // A handle keeps its file open until it is gone, not only closed: each in its own scope.
        do { try StorageFile.openTyped(StorageOptions(path: dir.file("a.strata"))).close() }
        #expect(link(dir.file("a.strata"), dir.file("b.strata")) == 0)
        let a = LockLocation.candidates(forDataPath: dir.file("a.strata"))
        let b = LockLocation.candidates(forDataPath: dir.file("b.strata"))
        #expect(a.preferred == b.preferred)
        #expect(a.preferred.path.hasPrefix(FileIdentity.sharedLockDirectory + "/strata-"))
        // Both names reach one core, locked once.
        do {
            let first = try StorageFile.openTyped(StorageOptions(path: dir.file("a.strata")))
            let second = try StorageFile.openTyped(StorageOptions(path: dir.file("b.strata")))
            #expect(first.core === second.core)
            #expect(first.core.lockFile?.path == a.preferred.path)
            first.close()
            second.close()
        }
        try StorageFile.deleteFiles(path: dir.file("b.strata"))
        #expect(access(a.preferred.path, F_OK) == 0, "another name remains: the shared lock stays")
        try StorageFile.deleteFiles(path: dir.file("a.strata"))
        #expect(access(a.preferred.path, F_OK) != 0, "the last name took the shared lock with it")
    }

    @Test func anOpenThroughASecondLockFileIsRefusedAndTheFirstGoesOn() throws {
        let dir = TemporaryDirectory()
        let first = try StorageFile.openTyped(StorageOptions(path: dir.file("a.strata")))
        defer { first.close() }
        // A second lock file for the same data file, as a bind mount's name would get: its open
        // must see the first one's claim on the data file.
        let fd = open(dir.file("a.strata"), O_RDWR | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        let other = try LockFile(lockPath: dir.file("elsewhere.lock"))
        guard case .otherLockFile = try DataFileClaim.take(fd, lock: other.identity, path: dir.file("a.strata")) else {
            Issue.record("a second lock file's claim was granted")
            return
        }
        #expect(DataFileClaim.isOpen(path: dir.file("a.strata")))
        let write = try first.beginWrite()
        _ = try write.commit()
    }
}
