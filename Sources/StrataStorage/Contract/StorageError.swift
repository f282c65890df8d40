/// Every failure StrataStorage reports. A code for programs, a message naming the cause for people.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable {
        /// The file exists but is not a Strata file (bad magic, unknown format version).
        case notAStrataFile
        /// The file is shorter than its meta says, or was cut mid-page.
        case truncatedFile
        /// No meta slot verifies, or a structure is inconsistent.
        case corruptFile
        /// A page failed its checksum or authentication tag on read.
        case corruptPage
        /// The encryption key does not open this file (or a key was given for a plain file,
        /// or none for an encrypted one).
        case wrongKey
        /// The key is not 64 bytes.
        case invalidKey
        /// A read or write of the file failed (EIO and friends).
        case io
        /// The file or its folder may not be opened or created by this process (EACCES, EPERM).
        case permissionDenied
        /// The disk is full (ENOSPC, EDQUOT, EFBIG).
        case diskFull
        /// The path cannot name a file: a component of it is not a directory (ENOTDIR), it names
        /// a directory (EISDIR), it is too long (ENAMETOOLONG) or loops (ELOOP).
        case badPath
        /// The operation needs exclusive use of the file, but another instance or process has it open.
        case fileInUse
        /// A lock could not be taken, or the lock file is not ours.
        case lockFailed
        /// A write on a file opened read-only.
        case readOnly
        /// More live versions than `maximumActiveVersions` allows.
        case tooManyActiveVersions
        /// The transaction or file was already ended/closed.
        case closed
        /// A key or value is larger than the trees accept.
        case tooLarge
        /// An argument outside its domain (an index out of range, a bad option).
        case invalidArgument
        /// The file or directory does not exist (and creation was not asked for).
        case notFound
        /// The destination of a copy already exists.
        case alreadyExists
        /// The operation is not possible in this state (e.g. nested write transaction).
        case invalidState
    }

    public let code: Code
    public let message: String
    /// The file involved, when there is one.
    public let path: String?

    public init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String {
        if let path { return "StorageError.\(code.rawValue): \(message) (\(path))" }
        return "StorageError.\(code.rawValue): \(message)"
    }
}
