// strata: the command-line tool for Strata files. Argument parsing and wiring only; the verbs
// live in StrataTool.
//
// stdout carries the result; errors go to stderr as `strata: <cause>`.
// Exit status (as strata-bench): 0 success; 1 a bad file or input (damage — `verify` found a
// problem —, not a Strata file, locked or open elsewhere, wrong key, I/O); 64 bad usage.
// Encryption keys come from a file (`--key-file`), never from the command line or environment.

import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Strata
import StrataTool
import StrataBuildRevision

@main
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Look inside, check, export, compact and copy Strata files (no model classes needed: the schema is in the file).",
        // The release, the revision the binary was built from, and the formats it writes.
        version: "strata \(StrataVersion.release) (revision \(BuildRevision.current); storage format \(StrataVersion.storageFormat), object format \(StrataVersion.objectFormat))",
        subcommands: [Info.self, Schema.self, Verify.self, Stat.self, Export.self, Import.self, Compact.self, Copy.self])
}

/// Standard output in 64 KiB writes.
final class BufferedOutput {
    private var buffer: [UInt8] = []

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Writes a line to stderr.
func note(_ text: String) {
    FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
}

/// Runs a verb, turning its failure into the message and exit status of the tool's convention.
func running(_ body: () throws(ToolError) -> Void) throws {
    do {
        try body()
    } catch {
        note("strata: \(error.message)")
        throw ExitCode(error.exitCode)
    }
}

struct FileOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The Strata file.", valueName: "file"))
    var file: String
    @Option(help: ArgumentHelp("The encryption key of an encrypted file: a file holding 64 raw bytes or 128 hexadecimal digits.", valueName: "path"))
    var keyFile: String?

    func key() throws(ToolError) -> [UInt8]? {
        guard let keyFile else { return nil }
        return try KeyFile.read(keyFile)
    }

    func open() throws(ToolError) -> StrataFile {
        try TargetFile.check(file)
        let key = try key()
        do { return try StrataFile(path: file, encryptionKey: key) } catch { throw ToolError("\(file): \(error.code.rawValue): \(error.message)") }
    }
}

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Format, version, sizes (used, free, held for readers), open readers, classes with object counts, what compaction would reclaim.")
    @OptionGroup var options: FileOptions
    @Option(help: "text (default) or json.")
    var format: String = "text"

    func run() throws {
        try running { () throws(ToolError) in
            guard format == "text" || format == "json" else { throw ToolError("--format is text or json, not '\(format)'", exitCode: 64) }
            let file = try options.open()
            defer { file.close() }
            print(format == "json" ? try InfoReport.json(file) : try InfoReport.text(file), terminator: "")
        }
    }
}

struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The classes, properties, types, primary keys, indexes and links the file stores.")
    @OptionGroup var options: FileOptions
    @Option(help: "swift (default) or json.")
    var format: String = "swift"

    func run() throws {
        try running { () throws(ToolError) in
            guard format == "swift" || format == "json" else { throw ToolError("--format is swift or json, not '\(format)'", exitCode: 64) }
            let file = try options.open()
            defer { file.close() }
            print(format == "json" ? SchemaListing.json(file.schema) : SchemaListing.swift(file.schema), terminator: "")
        }
    }
}

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check every page, the page accounting, every row, link, backlink and index. Exit 0 clean, 1 with each problem named. Never writes to the file.")
    @OptionGroup var options: FileOptions

    func run() throws {
        try running { () throws(ToolError) in
            let (text, clean, openFailure) = VerifyReport.run(path: options.file, encryptionKey: try options.key())
            print(text, terminator: "")
            if let openFailure { throw ToolError(openFailure) }
            if !clean { throw ToolError("\(options.file): verification failed") }
        }
    }
}

struct Stat: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Per tree: depth, pages, leaf fill, overflow; free space by run length; pages held for readers by version.")
    @OptionGroup var options: FileOptions

    func run() throws {
        try running { () throws(ToolError) in
            let file = try options.open()
            defer { file.close() }
            print(try StatReport.text(file), terminator: "")
        }
    }
}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write objects as JSON (every class, or one) or CSV (one class) to stdout. Links by primary key, or by position for classes without one; embedded objects nested.")
    @OptionGroup var options: FileOptions
    @Option(name: .customLong("class"), help: "The class to export (required for CSV).")
    var className: String?
    @Option(help: "json (default) or csv.")
    var format: String = "json"

    func run() throws {
        try running { () throws(ToolError) in
            guard format == "json" || format == "csv" else { throw ToolError("--format is json or csv, not '\(format)'", exitCode: 64) }
            if format == "csv" && className == nil { throw ToolError("a CSV export is of one class: name it with --class", exitCode: 64) }
            let file = try options.open()
            defer { file.close() }
            let exporter = try Exporter(file: file)
            // Streamed: a large file's export never exists whole in memory.
            let out = BufferedOutput()
            defer { out.flush() }
            if format == "csv", let className {
                try exporter.writeCSV(className: className, to: out.write)
            } else {
                try exporter.writeJSON(className: className, to: out.write)
            }
        }
    }
}

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read objects in export's form (JSON or CSV) into the file (created when missing), in one transaction: all or nothing.")
    @OptionGroup var options: FileOptions
    @Option(name: .customLong("class"), help: "The class of the input: a JSON array of its objects, or its CSV. Without it, the JSON of every class.")
    var className: String?
    @Option(help: "json (default) or csv.")
    var format: String = "json"
    @Option(help: ArgumentHelp("The input file (default: standard input).", valueName: "path"))
    var input: String?
    @Option(help: ArgumentHelp("Classes the file lacks, from `strata schema --format json`.", valueName: "path"))
    var schema: String?
    @Option(help: ArgumentHelp("The most bytes of input read; a larger input is refused (default 1 GiB).", valueName: "bytes"))
    var inputLimit: Int = ByteInput.defaultLimit

    func run() throws {
        try running { () throws(ToolError) in
            guard format == "json" || format == "csv" else { throw ToolError("--format is json or csv, not '\(format)'", exitCode: 64) }
            guard inputLimit > 0 else { throw ToolError("--input-limit is a number of bytes above 0", exitCode: 64) }
            let key = try options.key()
            var schemaText: String? = nil
            if let schema {
                let bytes = try Self.readWhole(schema, what: "the schema")
                guard let text = String(validating: bytes, as: UTF8.self) else { throw ToolError("\(schema): the schema is not UTF-8 text") }
                schemaText = text
            }
            // Read as it is parsed: an input without end is refused at its first invalid byte or
            // at the limit, never read whole first.
            var fd: Int32 = 0
            if let input {
                fd = Glibc.open(input, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { throw ToolError("\(input): cannot read the input (errno \(errno))") }
            }
            defer { if input != nil { Glibc.close(fd) } }
            let summary = try Importer.run(path: options.file, encryptionKey: key, className: className, format: format,
                                           input: ByteInput(fd: fd, source: input ?? "standard input", limit: inputLimit),
                                           schemaJSON: schemaText)
            print(summary)
        }
    }

    /// The bytes of a small file given by path, up to 64 MiB.
    static func readWhole(_ path: String, what: String) throws(ToolError) -> [UInt8] {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ToolError("\(path): cannot read \(what) (errno \(errno))") }
        defer { Glibc.close(fd) }
        return try ByteInput(fd: fd, source: path, limit: 64 << 20).readAll()
    }
}

struct Compact: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rewrite the file densely in place (free and held pages given back). Refused while another process or handle has it open.")
    @OptionGroup var options: FileOptions

    func run() throws {
        try running { () throws(ToolError) in
            try TargetFile.check(options.file)
            let key = try options.key()
            do throws(Realm.Error) {
                let (before, after) = try StrataFile.compact(path: options.file, encryptionKey: key)
                print("\(options.file): \(ByteCount.text(before)) → \(ByteCount.text(after))")
            } catch {
                throw ToolError("\(options.file): \(error.code.rawValue): \(error.message)")
            }
        }
    }
}

struct Copy: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a dense copy of the newest version to a new file, keeping the key, with another key (--to-key-file) or plain (--no-key). Refused while another process has the file open.")
    @OptionGroup var options: FileOptions
    @Argument(help: ArgumentHelp("The copy (must not exist).", valueName: "dest"))
    var destination: String
    @Option(help: ArgumentHelp("Encrypt the copy with the key in this file (64 raw bytes or 128 hexadecimal digits).", valueName: "path"))
    var toKeyFile: String?
    @Flag(help: "Write the copy unencrypted.")
    var noKey = false

    func run() throws {
        try running { () throws(ToolError) in
            if toKeyFile != nil && noKey { throw ToolError("--to-key-file and --no-key exclude each other", exitCode: 64) }
            let sourceKey = try options.key()
            let targetKey: [UInt8]? = noKey ? nil : try toKeyFile.map { (path) throws(ToolError) in try KeyFile.read(path) } ?? sourceKey
            let file = try options.open()
            defer { file.close() }
            do throws(Realm.Error) {
                try file.writeCopy(to: destination, encryptionKey: targetKey)
            } catch {
                throw ToolError("\(options.file): \(error.code.rawValue): \(error.message)")
            }
            print("\(options.file) → \(destination) (\(targetKey == nil ? "not encrypted" : "encrypted"))")
        }
    }
}
