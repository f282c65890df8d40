import Foundation
import Testing
import StrataBench

@Suite("history export")
struct HistoryExportTests {
    /// A history of two runs, the second on a host whose name needs escaping in both formats.
    private func store(_ dir: String) throws -> HistoryStore {
        let store = try HistoryStore(path: dir + "/h.sqlite")
        try store.append(RunRecord(table: CSVReader.parse(SyntheticRun.csv(revision: "r1", time: "2026-11-01T00:00:00Z",
                                                                           readingsPerSecond: [100.5, 200])),
                                   path: "a", suite: "smoke", source: "a"))
        try store.append(RunRecord(table: CSVReader.parse(SyntheticRun.csv(revision: "r2", time: "2026-11-02T00:00:00Z",
                                                                           readingsPerSecond: [300.25],
                                                                           host: "rack 1,a=b\"c\\d")),
                                   path: "b", suite: "smoke", source: "b"))
        return store
    }

    /// Splits a line-protocol line at unescaped `separator`s, keeping the escapes (`unescape` them).
    private func split(_ text: Substring, on separator: Character) -> [String] {
        var parts: [String] = [], current = "", escaped = false
        for character in text {
            if escaped { current.append(character); escaped = false; continue }
            if character == "\\" { escaped = true; current.append(character); continue }
            if character == separator { parts.append(current); current = ""; continue }
            current.append(character)
        }
        return parts + [current]
    }

    private func unescape(_ text: String) -> String {
        var result = "", escaped = false
        for character in text {
            if !escaped && character == "\\" { escaped = true; continue }
            escaped = false
            result.append(character)
        }
        return result
    }

    @Test func lineProtocolFollowsTheGrammarAndReadsBackAsTheCSV() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let text = HistoryExport.render(try HistoryExport.points(store(dir)), format: .influx)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 3)
        // measurement[,tag=value...] field=value[,field=value...] timestamp — spaces only escaped inside.
        let grammar = /^strata_bench(,([^ ,=\\]|\\[ ,=\\])+=([^ ,=\\]|\\[ ,=\\])+)+ [a-z0-9_]+=-?[0-9.e+-]+(,[a-z0-9_]+=-?[0-9.e+-]+)* [0-9]+$/
        for line in lines { #expect(line.wholeMatch(of: grammar) != nil, "\(line)") }
        var values: [Double] = []
        var hosts: [String] = []
        for line in lines {
            let sections = split(line, on: " ")
            #expect(sections.count == 3, "\(line)")
            let tags = Dictionary(uniqueKeysWithValues: split(Substring(sections[0]), on: ",").dropFirst().map { tag in
                let pair = split(Substring(tag), on: "=")
                return (unescape(pair[0]), unescape(pair[1]))
            })
            hosts.append(tags["host"] ?? "")
            #expect(tags["workload"] == "sensors" && tags["engine"] == "sqlite" && tags["strategy"] == "dedicated")
            let fields = Dictionary(uniqueKeysWithValues: sections[1].split(separator: ",").map { field in
                let pair = field.split(separator: "=")
                return (String(pair[0]), Double(pair[1]) ?? .nan)
            })
            values.append(fields["readings_per_s"] ?? .nan)
            #expect(fields["lost"] == 0 && fields["commit_p50_us"] == 12.5)
        }
        #expect(values == [100.5, 200, 300.25])
        #expect(hosts == ["vm/0000abcd", "vm/0000abcd", "rack 1,a=b\"c\\d"])
        #expect(lines[0].hasSuffix(" 1793491200000000000"))
        #expect(lines[0].contains(",repetition=1,") && lines[1].contains(",repetition=2,"))
    }

    /// A label's quote or backslash followed by a combining mark (one Character) is escaped too.
    @Test func openMetricsEscapesAQuoteBeforeACombiningMark() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try HistoryStore(path: dir + "/history.sqlite")
        _ = try store.append(RunRecord(table: CSVReader.parse(SyntheticRun.csv(revision: "r1", time: "2026-11-01T00:00:00Z",
                                                                                 readingsPerSecond: [1000], host: "vm/\"\u{301}\\\u{301}x")),
                                       path: "r1.csv", suite: "test", source: "test"))
        let text = HistoryExport.render(try HistoryExport.points(store), format: .openmetrics)
        #expect(text.contains("host=\"vm/\\\"\u{301}\\\\\u{301}x\""), "\(text.prefix(400))")
    }

    @Test func openMetricsFollowsTheGrammar() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let points = try HistoryExport.points(store(dir))
        let text = HistoryExport.render(points, format: .openmetrics)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.last == "# EOF")
        let type = /^# TYPE (strata_bench_[a-zA-Z0-9_]+) gauge$/
        let sample = /^(strata_bench_[a-zA-Z0-9_]+)\{[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\["\\n])*"(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\["\\n])*")*\} -?[0-9.e+-]+ [0-9.]+$/
        var family = ""
        var seen = Set<String>()
        var samples = 0
        for line in lines.dropLast() {
            if let match = line.wholeMatch(of: type) {
                family = String(match.1)
                #expect(seen.insert(family).inserted, "family \(family) declared twice: its samples are not together")
            } else if let match = line.wholeMatch(of: sample) {
                #expect(String(match.1) == family, "\(line)")
                samples += 1
            } else {
                Issue.record("not OpenMetrics: \(line)")
            }
        }
        #expect(samples == points.map(\.fields.count).reduce(0, +))
        #expect(text.contains("strata_bench_readings_per_s{workload=\"sensors\""))
        #expect(text.contains("host=\"rack 1,a=b\\\"c\\\\d\""))
        #expect(text.contains(" 300.25 1793577600\n"))
    }

    @Test func sinceKeepsLaterRunsAndTheCommandWritesBothFormats() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try store(dir)
        let later = try CLI.run(["history", "export", "--history", "h.sqlite", "--format", "influx", "--since", "2026-11-01T12:00:00Z"], in: dir)
        #expect(later.status == 0, "\(later.stderr)")
        #expect(later.stdout.split(separator: "\n").count == 1 && later.stdout.contains("readings_per_s=300.25"))
        let metrics = try CLI.run(["history", "export", "--history", "h.sqlite", "--format", "openmetrics"], in: dir)
        #expect(metrics.status == 0 && metrics.stdout.hasSuffix("# EOF\n"))
        let bad = try CLI.run(["history", "export", "--history", "h.sqlite", "--format", "csv"], in: dir)
        #expect(bad.status == 64)
        let badTime = try CLI.run(["history", "export", "--history", "h.sqlite", "--format", "influx", "--since", "yesterday"], in: dir)
        #expect(badTime.status == 64 && badTime.stderr.contains("--since yesterday"))
    }

    @Test func aServerThatIsDownOrABadURLIsAClearErrorAndTheHistoryIsUnchanged() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let history = try store(dir)
        let before = HistoryExport.render(try HistoryExport.points(history), format: .influx)
        // Port 9 (discard) on loopback: nothing listens there.
        let down = try CLI.run(["history", "export", "--history", "h.sqlite", "--format", "influx", "--push", "http://127.0.0.1:9/write"], in: dir)
        #expect(down.status == 1)
        #expect(down.stderr.contains("cannot reach http://127.0.0.1:9/write") && down.stderr.contains("the local history is unchanged"), "\(down.stderr)")
        let notHTTP = try CLI.run(["history", "export", "--history", "h.sqlite", "--format", "influx", "--push", "ftp://example/write"], in: dir)
        #expect(notHTTP.status == 1 && notHTTP.stderr.contains("not an http(s) URL"), "\(notHTTP.stderr)")
        let wrongFormat = try CLI.run(["history", "export", "--history", "h.sqlite", "--format", "openmetrics", "--push", "http://127.0.0.1:9/write"], in: dir)
        #expect(wrongFormat.status == 64)
        #expect(HistoryExport.render(try HistoryExport.points(HistoryStore(path: dir + "/h.sqlite")), format: .influx) == before)
        #expect(try HistoryStore(path: dir + "/h.sqlite").runs().count == 2)
    }
}
