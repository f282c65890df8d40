// The writer child's report to the parent: one line per event on the ack pipe.
//
//   ready                                   the store is open and its sensors exist
//   begin <tx> <sensor>:<first>-<last>[,…]  a transaction is about to be called with these readings
//   ack <tx>                                the engine's call for <tx> returned
//   error <tx>                              the engine's call for <tx> threw (the writer stops;
//                                           the message is on its stderr)
//   done                                    the writer made every commit it was asked for
//   error <tx> <message>                    the engine's call for <tx> threw (<tx> "-": outside a
//                                           transaction, e.g. while opening); the writer then ends
//
// <tx> and <sensor> are [A-Za-z0-9_.-]+; seqs are 1-based and contiguous per sensor. Each line
// is written with one write(2) and is shorter than PIPE_BUF (4096), so the lines of several
// writer threads never interleave and a SIGKILL never leaves half a line.
//
// Invariant: `AckLog.parse` accepts exactly these lines; anything else (unknown verb, bad
// range, ack of a transaction never begun, a second begin of one transaction, a line without its
// newline) is a typed `childProtocol` error naming the line.

import Foundation

/// The readings one transaction appends to one sensor: seqs first...last.
public struct AckPart: Sendable, Equatable, Codable {
    public var sensor: String
    public var first: Int64
    public var last: Int64

    public init(sensor: String, first: Int64, last: Int64) {
        self.sensor = sensor
        self.first = first
        self.last = last
    }
}

/// One transaction the writer began, and whether its call returned.
public struct AckTransaction: Sendable, Equatable {
    public var id: String
    public var parts: [AckPart]
    public var acknowledged: Bool
    /// The engine reported an error for it (`error <tx>`): never acknowledged.
    public var failed: Bool

    public init(id: String, parts: [AckPart], acknowledged: Bool, failed: Bool = false) {
        self.id = id
        self.parts = parts
        self.acknowledged = acknowledged
        self.failed = failed
    }
}

/// An engine error the writer reported (`error <tx> <message>`).
public struct AckError: Sendable, Equatable {
    /// The transaction whose call threw, "-" when none was in progress.
    public var id: String
    public var message: String

    public init(id: String, message: String) {
        self.id = id
        self.message = message
    }
}

/// Everything a writer child reported, in order.
public struct AckLog: Sendable, Equatable {
    public var ready = false
    public var done = false
    public var transactions: [AckTransaction] = []
    public var errors: [AckError] = []

    public init(ready: Bool = false, done: Bool = false, transactions: [AckTransaction] = [], errors: [AckError] = []) {
        self.ready = ready
        self.done = done
        self.transactions = transactions
        self.errors = errors
    }

    /// The logs of several writers of one store as one (their tx ids must differ: each writer
    /// was given its own `--tx-prefix`). Ready when every writer was; done when every writer was.
    public static func merged(_ logs: [AckLog]) -> AckLog {
        AckLog(ready: !logs.isEmpty && logs.allSatisfy(\.ready), done: !logs.isEmpty && logs.allSatisfy(\.done),
               transactions: logs.flatMap(\.transactions), errors: logs.flatMap(\.errors))
    }

    public var acknowledgedCount: Int { transactions.filter(\.acknowledged).count }

    /// The longest line a writer may send (PIPE_BUF on Linux): one write(2) of it is atomic.
    public static let maxLineBytes = 4096

    // MARK: Lines

    public static func beginLine(_ id: String, _ parts: [AckPart]) -> String {
        "begin \(id) " + parts.map { "\($0.sensor):\($0.first)-\($0.last)" }.joined(separator: ",") + "\n"
    }

    public static func ackLine(_ id: String) -> String { "ack \(id)\n" }
    public static func errorLine(_ id: String) -> String { "error \(id)\n" }
    public static let readyLine = "ready\n"

    /// The error line of `id` ("-": none): the message on one line, clipped so that the whole
    /// line stays one atomic write.
    public static func errorLine(_ id: String, _ message: String) -> String {
        var text = message.map { $0.isNewline || $0 == "\t" ? " " : String($0) }.joined().trimmingCharacters(in: .whitespaces)
        if text.isEmpty { text = "(no message)" }
        let room = maxLineBytes - 16 - id.utf8.count
        while text.utf8.count > room { text.removeLast() }
        return "error \(id) \(text)\n"
    }
    public static let doneLine = "done\n"

    /// Parses the bytes a writer sent. `source` names them in errors ("ack pipe of round 3").
    public static func parse(_ text: String, source: String = "ack pipe") throws -> AckLog {
        var log = AckLog()
        var index: [String: Int] = [:]
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.last == "" else {
            throw BenchError(.childProtocol, "the last line has no newline: '\(QuotedInput.clip(String(lines.last ?? "")))'",
                             path: source, line: lines.count)
        }
        lines.removeLast()
        for (offset, line) in lines.enumerated() {
            func bad(_ why: String) -> BenchError {
                BenchError(.childProtocol, "\(why): '\(QuotedInput.clip(String(line)))'", path: source, line: offset + 1)
            }
            let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            switch fields.first {
            case "ready" where fields.count == 1:
                log.ready = true
            case "done" where fields.count == 1:
                log.done = true
            case "begin":
                guard fields.count == 3, isName(fields[1]) else { throw bad("expected 'begin <tx> <sensor>:<first>-<last>,…'") }
                guard index[fields[1]] == nil else { throw bad("transaction \(fields[1]) begun twice") }
                var parts: [AckPart] = []
                for text in fields[2].split(separator: ",", omittingEmptySubsequences: false) {
                    guard let part = part(String(text)) else { throw bad("bad part '\(QuotedInput.clip(String(text)))'") }
                    parts.append(part)
                }
                index[fields[1]] = log.transactions.count
                log.transactions.append(AckTransaction(id: fields[1], parts: parts, acknowledged: false))
            case "error" where fields.count >= 3:
                guard fields[1] == "-" || index[fields[1]] != nil else { throw bad("error of a transaction never begun") }
                let message = fields[2...].joined(separator: " ")
                guard !message.trimmingCharacters(in: .whitespaces).isEmpty else { throw bad("an error line without its message") }
                log.errors.append(AckError(id: fields[1], message: message))
                // A named transaction's error is also its refusal (as the short form says).
                if let position = index[fields[1]] {
                    guard !log.transactions[position].acknowledged, !log.transactions[position].failed else {
                        throw bad("error of a transaction already acknowledged or failed")
                    }
                    log.transactions[position].failed = true
                }
            case "ack" where fields.count == 2:
                guard let position = index[fields[1]] else { throw bad("ack of a transaction never begun") }
                guard !log.transactions[position].acknowledged else { throw bad("transaction acknowledged twice") }
                guard !log.transactions[position].failed else { throw bad("ack of a transaction that failed") }
                log.transactions[position].acknowledged = true
            case "error" where fields.count == 2:
                guard let position = index[fields[1]] else { throw bad("error of a transaction never begun") }
                guard !log.transactions[position].acknowledged, !log.transactions[position].failed else {
                    throw bad("error of a transaction already acknowledged or failed")
                }
                log.transactions[position].failed = true
            default:
                throw bad("not a line of the writer protocol")
            }
        }
        return log
    }

    /// "sensor:first-last" with a name, 1 <= first <= last; nil otherwise.
    static func part(_ text: String) -> AckPart? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        let sensor = String(text[..<colon])
        let range = text[text.index(after: colon)...].split(separator: "-", omittingEmptySubsequences: false)
        guard isName(sensor), range.count == 2, range.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let first = Int64(range[0]), let last = Int64(range[1]), first >= 1, first <= last else { return nil }
        return AckPart(sensor: sensor, first: first, last: last)
    }

    /// A transaction id or sensor symbol: [A-Za-z0-9_.-]+.
    public static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "_.-".unicodeScalars.contains($0)) }
    }
}
