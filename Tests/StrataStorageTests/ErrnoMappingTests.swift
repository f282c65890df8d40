// System call failures become typed storage errors by errno: a full disk, a missing file and a
// refused permission each keep their own code; anything else is `.io`.
#if canImport(Glibc)
import Glibc
#endif
@testable import StrataStorage
import Testing

@Suite struct ErrnoMappingTests {
    @Test(arguments: [(ENOSPC, StorageError.Code.diskFull), (EDQUOT, .diskFull), (ENOENT, .notFound),
                      (EACCES, .permissionDenied), (EPERM, .permissionDenied), (EIO, .io)])
    func eachErrnoHasItsCode(errno code: Int32, expected: StorageError.Code) {
        let error = ioError("open", code, path: "/x")
        #expect(error.code == expected)
        #expect(error.path == "/x" && error.message.hasPrefix("open failed"))
    }
}
