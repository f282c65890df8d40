// Helpers shared by the page-file tests: temporary directories and a tiny "record" format
// (one page whose payload holds a counter and a repeated marker byte) that lets tests check
// exactly which version's bytes they read.

import Testing
import StrataStorage
#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under the temporary directory (TMPDIR, else /tmp), removed (with its files)
/// on deinit.
final class TemporaryDirectory {
    let path: String

    init() {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/strata-pager-XXXXXX".utf8CString)
        let made: String? = template.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
            return String(cString: result)
        }
        path = made ?? "\(base)/strata-pager-fallback-\(getpid())"
        if made == nil { mkdir(path, 0o755) }
    }

    func file(_ name: String = "db.strata") -> String { path + "/" + name }

    deinit {
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
                }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(dir)
        }
        rmdir(path)
    }
}

/// Writes `value` and a marker into a payload.
func stamp(_ payload: UnsafeMutableRawPointer, value: UInt64, marker: UInt8) {
    payload.storeBytes(of: 1, as: UInt8.self)  // a tree-like page kind
    payload.storeBytes(of: value, toByteOffset: 8, as: UInt64.self)
    for i in 16..<PageLayout.payloadSize { payload.storeBytes(of: marker, toByteOffset: i, as: UInt8.self) }
}

/// Reads back what `stamp` wrote; nil if the marker bytes are not uniform.
func readStamp(_ payload: UnsafeRawPointer) -> (value: UInt64, marker: UInt8)? {
    let marker = payload.load(fromByteOffset: 16, as: UInt8.self)
    for i in 16..<PageLayout.payloadSize where payload.load(fromByteOffset: i, as: UInt8.self) != marker {
        return nil
    }
    return (payload.loadUnaligned(fromByteOffset: 8, as: UInt64.self), marker)
}

/// One write transaction that stores `value` in a fresh page referenced by root 0 (freeing the
/// previous one): the smallest realistic commit.
@discardableResult
func commitCounter(_ file: StorageFile, value: UInt64, marker: UInt8 = 0xAB) throws -> UInt64 {
    let txn = try file.beginWrite()
    let old = PageRef(UInt32(truncatingIfNeeded: txn.roots[0]))
    let (ref, payload): (PageRef, UnsafeMutableRawPointer)
    if old.isNull {
        (ref, payload) = try txn.allocatePage()
    } else {
        (ref, payload) = try txn.writablePage(old)
    }
    stamp(payload, value: value, marker: marker)
    txn.roots[0] = UInt64(ref.raw)
    txn.roots[1] = value
    return try txn.commit()
}

/// The counter stored by `commitCounter`, read through `pages`.
func readCounter(_ pages: some PageReading, roots: UserRoots) throws -> UInt64? {
    let ref = PageRef(UInt32(truncatingIfNeeded: roots[0]))
    if ref.isNull { return nil }
    return readStamp(try pages.readPage(ref))?.value
}

func fileSize(_ path: String) -> Int {
    var st = stat()
    return stat(path, &st) == 0 ? Int(st.st_size) : -1
}

/// Runs `body` and returns the StorageError code it threw (nil if it did not throw).
func storageErrorCode(_ body: () throws -> Void) -> StorageError.Code? {
    do {
        try body()
        return nil
    } catch let error as StorageError {
        return error.code
    } catch {
        return nil
    }
}
