// What `strata` does with inputs that are not what they claim to be: a FIFO where a file is
// expected, a standard input without end, bytes that are not UTF-8, numbers and dates that only
// begin like one, values out of their type's range, a JSON member or CSV column given twice. Each
// is a typed error naming where it is, in bounded time, and the target file is byte for byte what
// it was (or still absent, with no companion file left behind).
//
// Run as child processes (the bugs were in the command line as much as in the verbs), each with a
// timeout: a hang is a failure, not a stuck test run.
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import StrataTool
import Testing

/// FNV-1a over the bytes: compared instead of the bytes themselves, whose difference a failing
/// expectation would otherwise compute element by element (minutes for a file of megabytes).
func checksum(_ data: Data) -> UInt64 {
    data.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
}

@Suite("strata refuses hostile inputs")
struct HostileInputTests {
    /// A class with one property of each kind these inputs attack.
    static let schema = """
    [{"name": "Event", "embedded": false, "properties": [
      {"name": "id", "type": "int", "collection": "none", "optional": false, "primaryKey": true, "indexed": true},
      {"name": "label", "type": "string", "collection": "none", "optional": false, "primaryKey": false, "indexed": false},
      {"name": "when", "type": "date", "collection": "none", "optional": false, "primaryKey": false, "indexed": false},
      {"name": "ratio", "type": "float", "collection": "none", "optional": false, "primaryKey": false, "indexed": false},
      {"name": "score", "type": "double", "collection": "none", "optional": false, "primaryKey": false, "indexed": false},
      {"name": "counts", "type": "int", "collection": "map", "optional": false, "primaryKey": false, "indexed": false}
    ]}]
    """

    /// A file holding one Event, made by the tool itself; returns its path.
    static func eventFile(_ dir: String) throws -> String {
        try schema.write(toFile: dir + "/schema.json", atomically: true, encoding: .utf8)
        let path = dir + "/events.realm"
        let first = #"[{"id": 1, "label": "first", "when": 0, "ratio": 0.5, "score": 1.5, "counts": {"a": 1}}]"#
        let run = try StrataCLI.run(["import", path, "--class", "Event", "--schema", dir + "/schema.json"], stdin: Data(first.utf8))
        guard run.status == 0 else { throw ToolError("setting up: \(run.stderr)") }
        return path
    }

    /// The names in `dir`, for "nothing was left behind".
    static func names(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    /// Imports `input` (bytes) into the Event file; expects a refusal mentioning every one of
    /// `mentions` and the file unchanged, byte for byte, with no new file beside it.
    func expectRefused(_ input: [UInt8], format: String = "json", mentions: [String]) throws {
        let dir = toolTestDirectory()
        let path = try Self.eventFile(dir)
        let before = fileBytes(path)
        let namesBefore = Self.names(dir)
        let run = try StrataCLI.run(["import", path, "--class", "Event", "--format", format], stdin: Data(input), timeout: 60)
        #expect(run.status == 1, "accepted: \(run.stdout)")
        #expect(!run.signaled && !run.timedOut)
        for text in mentions { #expect(run.stderr.contains(text), "\(run.stderr) does not mention \(text)") }
        let after = fileBytes(path)
        #expect(after.count == before.count)
        #expect(checksum(after) == checksum(before))
        #expect(Self.names(dir) == namesBefore)
    }

    static func json(_ fields: String) -> [UInt8] {
        Array(#"[{"id": 2, "label": "x", "when": 0, "ratio": 0.5, "score": 1.5, "counts": {}"#.utf8)
            + Array((fields.isEmpty ? "" : ", " + fields).utf8) + Array("}]".utf8)
    }

    /// The CSV header and one row whose `column` holds `value` (raw bytes, quoting included).
    static func csv(_ column: String, _ value: [UInt8]) -> [UInt8] {
        let names = ["id", "label", "when", "ratio", "score", "counts"]
        let good: [String: String] = ["id": "2", "label": "x", "when": "0", "ratio": "0.5", "score": "1.5", "counts": "\"{}\""]
        var row: [UInt8] = []
        for (i, name) in names.enumerated() {
            if i > 0 { row.append(UInt8(ascii: ",")) }
            row += name == column ? value : Array(good[name]!.utf8)
        }
        return Array((names.joined(separator: ",") + "\n").utf8) + row + [0x0A]
    }

    // MARK: - A FIFO where the file is expected

    @Test(arguments: [["info"], ["schema"], ["verify"], ["stat"], ["export"], ["import"], ["compact"], ["copy", "DEST"]])
    func aFIFOIsRefusedWithoutBlocking(_ verb: [String]) throws {
        let dir = toolTestDirectory()
        let fifo = dir + "/pipe.realm"
        #expect(mkfifo(fifo, 0o600) == 0)
        let args = [verb[0], fifo] + verb.dropFirst().map { $0 == "DEST" ? dir + "/dest.realm" : $0 }
        let run = try StrataCLI.run(args, stdin: Data("[]".utf8), timeout: 20)
        #expect(!run.timedOut, "\(verb[0]) blocked on a FIFO")
        #expect(run.status == 1)
        #expect(run.stderr.contains("fileAccess") && run.stderr.contains("FIFO"), "\(run.stderr)")
        #expect(Self.names(dir) == ["pipe.realm"])
    }

    // MARK: - Input without end, input over the limit

    @Test func anEndlessStandardInputFailsAtItsFirstByte() throws {
        let dir = toolTestDirectory()
        // 4 GiB of zeros through a pipe: a tool that stops at the first byte leaves the writer to
        // die of SIGPIPE (status 141) after a pipe's worth; one that read the input to its end
        // first would let it finish (0). No memory limit, so it holds under AddressSanitizer too.
        let command = "dd if=/dev/zero bs=65536 count=65536 status=none | \"$0\" import \"$1\" --class Event --schema \"$2\"; "
            + "status=(\"${PIPESTATUS[@]}\"); echo \"writer ${status[0]}\" >&2; exit ${status[1]}"
        try Self.schema.write(toFile: dir + "/schema.json", atomically: true, encoding: .utf8)
        let shell = try StrataCLI.run(["-c", command, try StrataCLI.path(), dir + "/new.realm", dir + "/schema.json"],
                                      timeout: 30, executable: "/bin/bash")
        #expect(!shell.timedOut && !shell.signaled)
        #expect(shell.status == 1)
        #expect(shell.stderr.contains("standard input: line 1, column 1"), "\(shell.stderr)")
        #expect(shell.stderr.contains("writer 141"), "\(shell.stderr)")
        #expect(Self.names(dir) == ["schema.json"])
    }

    @Test func anInputOverTheLimitIsRefused() throws {
        let dir = toolTestDirectory()
        let path = try Self.eventFile(dir)
        let before = fileBytes(path)
        let input = Self.json(#""x": 0"#)
        let run = try StrataCLI.run(["import", path, "--class", "Event", "--input-limit", "20"], stdin: Data(input))
        #expect(run.status == 1)
        #expect(run.stderr.contains("larger than the limit of 20 bytes"), "\(run.stderr)")
        #expect(checksum(fileBytes(path)) == checksum(before))
    }

    // MARK: - Bytes that are not UTF-8

    @Test func invalidUTF8InJSONIsRefused() throws {
        var input = Self.json("")
        let at = input.firstIndex(of: UInt8(ascii: "x"))!
        input[at] = 0xFF
        try expectRefused(input, mentions: ["line 1, column \(at + 1)", "not valid UTF-8"])
    }

    @Test func invalidUTF8InCSVIsRefused() throws {
        try expectRefused(Self.csv("label", [UInt8(ascii: "a"), 0xC0, 0xAF]), format: "csv", mentions: ["line 2, column 4", "not valid UTF-8"])
    }

    @Test func aControlCharacterOutsideQuotesIsRefused() throws {
        try expectRefused(Self.csv("label", [0]), format: "csv", mentions: ["line 2, column 3", "control character"])
    }

    // MARK: - Numbers and dates read by prefix, or out of range

    @Test(arguments: ["2020-01-01", "12abc", "-", "\"1,5\"", "1e400"])
    func aCSVDateMustBeAWholeNumber(_ cell: String) throws {
        try expectRefused(Self.csv("when", Array(cell.utf8)), format: "csv", mentions: ["line 2, column 5", "Event object 0.when"])
    }

    @Test(arguments: ["0x10", "0x1p3", "infinity", "+1", "1e-50", "1e400"])
    func aCSVFloatMustBeADecimalNumberInRange(_ cell: String) throws {
        try expectRefused(Self.csv("ratio", Array(cell.utf8)), format: "csv", mentions: ["line 2, column 7", "ratio"])
    }

    @Test(arguments: ["0x10", "1e400", "1e-400"])
    func aCSVDoubleMustBeADecimalNumberInRange(_ cell: String) throws {
        try expectRefused(Self.csv("score", Array(cell.utf8)), format: "csv", mentions: ["line 2, column 11", "score"])
    }

    @Test(arguments: [#""ratio": 1e-50"#, #""score": 1e400"#, #""ratio": 1e39"#, #""score": -1e-400"#])
    func aJSONNumberOutOfItsTypesRangeIsRefused(_ field: String) throws {
        let input = Array(#"[{"id": 2, "label": "x", "when": 0, "counts": {}, "#.utf8) + Array(field.utf8)
            + Array(field.hasPrefix("\"ratio") ? #", "score": 1}]"#.utf8 : #", "ratio": 1}]"#.utf8)
        try expectRefused(input, mentions: ["line 1, column", "Event object 0."])
    }

    @Test(arguments: ["9223372036854775808", "1.5", "1e3"])
    func anIntegerMustBeExactAndInRange(_ id: String) throws {
        let input = Array(#"[{"id": "#.utf8) + Array(id.utf8) + Array(#", "label": "x", "when": 0, "ratio": 0.5, "score": 1.5, "counts": {}}]"#.utf8)
        try expectRefused(input, mentions: ["line 1, column 9", "Event object 0.id"])
    }

    // MARK: - JSON escapes

    @Test(arguments: [#"\u+041"#, #"\u-000"#, #"\u 041"#, #"\u04"#])
    func aUnicodeEscapeTakesFourHexDigits(_ escape: String) throws {
        let input = Array(#"[{"id": 2, "label": ""#.utf8) + Array(escape.utf8) + Array(#"", "when": 0, "ratio": 0.5, "score": 1.5, "counts": {}}]"#.utf8)
        try expectRefused(input, mentions: ["line 1, column", "four hexadecimal digits"])
    }

    // MARK: - Given twice

    @Test func aJSONMemberGivenTwiceIsRefused() throws {
        try expectRefused(Self.json(#""label": "y""#), mentions: ["line 1, column 79", "'label' is given twice"])
    }

    @Test func aMapKeyGivenTwiceIsRefused() throws {
        let input = Array(#"[{"id": 2, "label": "x", "when": 0, "ratio": 0.5, "score": 1.5, "counts": {"a": 1, "a": 2}}]"#.utf8)
        try expectRefused(input, mentions: ["line 1, column 84", "'a' is given twice"])
    }

    @Test func aCSVColumnGivenTwiceIsRefused() throws {
        let input = Array("id,label,when,ratio,score,counts,label\n2,x,0,0.5,1.5,\"{}\",y\n".utf8)
        try expectRefused(input, format: "csv", mentions: ["line 1, column 34", "'label' twice"])
    }

    // MARK: - A failure anywhere changes nothing

    /// 20,000 objects, ~3 MB, of which the last repeats the first one's primary key: refused
    /// before anything is written, so the file keeps its size and bytes.
    @Test func aFailureOnTheLastObjectLeavesTheFileAsItWas() throws {
        let dir = toolTestDirectory()
        let path = try Self.eventFile(dir)
        let before = fileBytes(path)
        let namesBefore = Self.names(dir)
        let label = String(repeating: "y", count: 120)
        var objects = (2...20_000).map { #"{"id": \#($0), "label": "\#(label)", "when": \#($0), "ratio": 0.5, "score": 1.5, "counts": {"k": \#($0)}}"# }
        objects.append(#"{"id": 1, "label": "again", "when": 0, "ratio": 0.5, "score": 1.5, "counts": {}}"#)
        let input = "[\n" + objects.joined(separator: ",\n") + "\n]\n"
        let run = try StrataCLI.run(["import", path, "--class", "Event"], stdin: Data(input.utf8), timeout: 300)
        #expect(run.status == 1)
        #expect(run.stderr.contains("line 20001, column 1") && run.stderr.contains("already exists"), "\(run.stderr)")
        let after = fileBytes(path)
        #expect(after.count == before.count)
        #expect(checksum(after) == checksum(before))
        #expect(Self.names(dir) == namesBefore)
    }

    /// A write that fails after the input was accepted — here the file may not grow past a
    /// limit (RLIMIT_FSIZE, its signal ignored, so writes fail with EFBIG as on a full disk) — is
    /// rolled back and the file cut back to its length; what it holds reads as before.
    @Test func aWriteThatFailsLeavesTheFileItsLength() throws {
        let dir = toolTestDirectory()
        let path = try Self.eventFile(dir)
        let sizeBefore = fileBytes(path).count
        let exportBefore = try StrataCLI.run(["export", path]).stdout
        let label = String(repeating: "z", count: 200)
        let objects = (2...30_000).map { #"{"id": \#($0), "label": "\#(label)", "when": 0, "ratio": 0.5, "score": 1.5, "counts": {}}"# }
        try ("[" + objects.joined(separator: ",\n") + "]").write(toFile: dir + "/big.json", atomically: true, encoding: .utf8)
        // dash counts ulimit -f in 512-byte blocks.
        let blocks = (sizeBefore + 256 * 1024) / 512
        let command = "trap '' XFSZ; ulimit -f \(blocks); exec \"$0\" import \"$1\" --class Event --input \"$2\""
        let run = try StrataCLI.run(["-c", command, try StrataCLI.path(), path, dir + "/big.json"], timeout: 300, executable: "/bin/sh")
        #expect(run.status == 1 && !run.signaled, "\(run.status) \(run.stderr)")
        #expect(fileBytes(path).count == sizeBefore)
        #expect(try StrataCLI.run(["export", path]).stdout == exportBefore)
        #expect(try StrataCLI.run(["verify", path]).status == 0)
    }

    @Test func aFailedImportIntoANewPathLeavesNothing() throws {
        let dir = toolTestDirectory()
        try Self.schema.write(toFile: dir + "/schema.json", atomically: true, encoding: .utf8)
        let input = Self.json(#""x": 0"#)
        let run = try StrataCLI.run(["import", dir + "/new.realm", "--class", "Event", "--schema", dir + "/schema.json"], stdin: Data(input))
        #expect(run.status == 1)
        #expect(run.stderr.contains("no stored property 'x'"), "\(run.stderr)")
        #expect(Self.names(dir) == ["schema.json"])
    }
}
