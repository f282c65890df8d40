// What the `strata` tool's tests share: the `strata` executable run as a child process, a model
// with every kind of property, and a file of it with known contents.
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Strata
import StrataTool
import Testing
import StrataTestSupport

/// Runs the built `strata` executable (built beside the tests by `swift build --build-tests`).
enum StrataCLI {
    struct Outcome {
        var status: Int32
        /// Whether the process ended by a signal (a crash) instead of exiting.
        var signaled: Bool
        /// Whether it was killed for running past the timeout (a hang).
        var timedOut: Bool
        var stdout: String
        var stderr: String
    }

    static func path() throws -> String {
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("strata").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        throw ToolError("the strata executable is not built near \(exe): run swift build --build-tests")
    }

    /// Runs `strata` with `arguments`; killed after `timeout` seconds.
    ///
    /// Spawned with posix_spawn and waited for on the calling thread (poll on its pipes, then
    /// waitpid): no dispatch source, no thread blocked per child. The suites start hundreds of
    /// these while others run; a version that parked a global-queue thread per child for its
    /// timeout made libdispatch start overcommit threads, and one full run crashed inside
    /// libdispatch's event loop.
    /// `executable`: another program to run instead (a shell that sets limits, then runs
    /// `strata`).
    static func run(_ arguments: [String], stdin: Data? = nil, timeout: Double = 120, executable other: String? = nil) throws -> Outcome {
        let executable = try other ?? path()
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1], inPipe: [Int32] = [-1, -1]
        // Close-on-exec at once, so that a child another test spawns meanwhile does not keep
        // these pipes open (pipe2 is not exported to Swift; the window is a few instructions).
        for i in 0..<3 {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw ToolError("pipe failed: errno \(errno)") }
            _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
            if i == 0 { outPipe = ends } else if i == 1 { errPipe = ends } else { inPipe = ends }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(inPipe[0]); close(outPipe[1]); close(errPipe[1])
        guard spawned == 0 else {
            close(inPipe[1]); close(outPipe[0]); close(errPipe[0])
            throw ToolError("posix_spawn \(executable) failed: \(spawned)")
        }
        // The verbs read all of their input before writing anything, so writing it first cannot
        // deadlock against a full output pipe.
        if let stdin {
            stdin.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let n = write(inPipe[1], buffer.baseAddress! + offset, buffer.count - offset)
                    if n <= 0 { break }
                    offset += n
                }
            }
        }
        close(inPipe[1])
        let deadline = Date().addingTimeInterval(timeout)
        var out = Data(), err = Data()
        var open: [Int32] = [outPipe[0], errPipe[0]]
        var timedOut = false
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 {
                timedOut = true
                kill(pid, SIGKILL)
                break
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(left, 1) * 1000))
            if ready < 0 && errno != EINTR { break }
            for f in fds where f.revents != 0 {
                let n = read(f.fd, &chunk, chunk.count)
                if n > 0 {
                    if f.fd == outPipe[0] { out.append(contentsOf: chunk[0..<n]) } else { err.append(contentsOf: chunk[0..<n]) }
                } else {
                    open.removeAll { $0 == f.fd }
                }
            }
        }
        close(outPipe[0]); close(errPipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signaled = (status & 0x7f) != 0 && (status & 0x7f) != 0x7f
        return Outcome(status: signaled ? 128 + (status & 0x7f) : (status >> 8) & 0xff, signaled: signaled && !timedOut, timedOut: timedOut,
                       stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }
}

/// A fresh directory for one test.
func toolTestDirectory(_ name: String = #function) -> String {
    let dir = FileManager.default.temporaryDirectory
        .appendingPathComponent("strata-tool-\(name.prefix(while: { $0 != "(" }))-\(UUID().uuidString)").path
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

func fileBytes(_ path: String) -> Data { FileManager.default.contents(atPath: path) ?? Data() }

// MARK: - The model: every property type, lists, sets, maps, embedded objects, links, indexes

public final class ToolOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var flag: Bool
    @Persisted var small: Int8
    @Persisted var ratio: Float
    @Persisted var score: Double
    @Persisted var blob: Data
    @Persisted var born: Date
    @Persisted var amount: Decimal128
    @Persisted var oid: ObjectId
    @Persisted var uuid: UUID
    @Persisted var nickname: String?
    @Persisted var age: Int?
    @Persisted var anything: AnyRealmValue
    @Persisted var tags: List<String>
    @Persisted var maybeInts: List<Int?>
    @Persisted var codes: MutableSet<Int>
    @Persisted var scores: Map<String, Double>
    @Persisted var address: ToolAddress?
    @Persisted var previous: List<ToolAddress>
    @Persisted var pet: ToolPet?
    @Persisted var pets: List<ToolPet>
    @Persisted var friends: MutableSet<ToolOwner>
    @Persisted var petsByName: Map<String, ToolPet?>
    @Persisted(originProperty: "friends") var friendOf: LinkingObjects<ToolOwner>
}

public final class ToolAddress: EmbeddedObject {
    @Persisted var street: String
    @Persisted var city: String
}

/// No primary key: links to it are exported by position.
public final class ToolPet: Object {
    @Persisted var name: String
    @Persisted var legs: Int
}

enum ToolFixture {
    static let types: [Object.Type] = [ToolOwner.self, ToolAddress.self, ToolPet.self]

    static func configuration(_ path: String, key: [UInt8]? = nil) -> Realm.Configuration {
        var c = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
        c.objectTypes = types
        c.encryptionKey = key.map { Data($0) }
        return c
    }

    /// Two owners (one with everything set, one mostly empty), three pets (one deleted, so keys
    /// have a gap), links both ways.
    static func write(_ path: String, key: [UInt8]? = nil) throws {
        let realm = try Realm(configuration: configuration(path, key: key))
        try realm.write {
            let rex = ToolPet(), tom = ToolPet(), gone = ToolPet(), kit = ToolPet()
            rex.name = "Rex"; rex.legs = 4
            gone.name = "Gone"; gone.legs = 3
            tom.name = "Tom, \"the\" cat"; tom.legs = 4
            kit.name = ""; kit.legs = 0
            realm.add([rex, gone, tom, kit])
            realm.delete(gone)
            let a = ToolOwner()
            a.id = 1
            a.name = "Ada"
            a.flag = true
            a.small = -8
            a.ratio = 0.5
            a.score = 1.0 / 3.0
            a.blob = Data([0, 1, 2, 255])
            a.born = Date(timeIntervalSince1970: 1_700_000_000.25)
            a.amount = try Decimal128(string: "12.345")
            a.oid = ObjectId("0123456789abcdef01234567")
            a.uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
            a.nickname = "A\nB"
            a.age = 36
            a.anything = .string("mixed")
            a.tags.append(objectsIn: ["x", "y,z"])
            a.maybeInts.append(objectsIn: [1, nil, 3])
            a.codes.insert(objectsIn: [3, 1, 2])
            a.scores["b"] = 2.5
            a.scores["a"] = -1
            let home = ToolAddress(); home.street = "1 Main St"; home.city = "Springfield"
            a.address = home
            let old = ToolAddress(); old.street = "2 Elm St"; old.city = "Shelbyville"
            a.previous.append(old)
            a.pet = tom
            a.pets.append(objectsIn: [rex, tom, rex])
            a.petsByName["rex"] = rex
            a.petsByName["none"] = .some(nil)
            let b = ToolOwner()
            b.id = 2
            b.name = "Bo"
            b.born = Date(timeIntervalSince1970: 0)
            b.amount = Decimal128(0)
            b.oid = ObjectId("000000000000000000000000")
            b.uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
            b.anything = .int(7)
            b.pet = kit
            realm.add([a, b])
            a.friends.insert(b)
            b.friends.insert(a)
            b.friends.insert(b)
        }
    }
}

/// A `strata-probe hold` child: another process with the corpus file open, reading (pinning) its
/// newest version until `release()`.
final class HeldByAnotherProcess {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    init(corpus path: String, encrypted: Bool = false) throws {
        process.executableURL = URL(fileURLWithPath: try StrataProbe.path())
        process.arguments = ["hold", path, encrypted ? "encrypted" : "plain", "count"]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw ToolError("strata-probe hold ended before it was ready") }
            line.append(chunk)
        }
        guard String(decoding: line, as: UTF8.self).hasPrefix("ready") else {
            throw ToolError("strata-probe hold said \(String(decoding: line, as: UTF8.self))")
        }
    }

    var processID: Int32 { process.processIdentifier }

    func release() {
        input.fileHandleForWriting.write(Data("\n".utf8))
        process.waitUntilExit()
    }
}
