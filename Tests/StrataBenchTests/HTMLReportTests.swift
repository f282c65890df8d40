import Foundation
import Testing
import StrataBench

@Suite("HTML report")
struct HTMLReportTests {
    @Test func everyValueIsEscapedAndNothingIsLoadedFromElsewhere() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let hostile = "<script>alert(\"x\")</script>&<img src=x onerror=1>"
        try SyntheticRun.write(SyntheticRun.csv(revision: "rev'\"<b>", time: "2026-11-01T00:00:00Z", readingsPerSecond: [100, 300, 200],
                                                host: hostile), to: dir + "/run.csv")
        let html = try RunHTMLReport.render(.init(runPath: dir + "/run.csv"))
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        #expect(!html.contains("<b>"))
        #expect(html.contains(HTML.text(hostile)))
        #expect(HTML.text(hostile) == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&lt;img src=x onerror=1&gt;")
        for external in ["src=\"", "href=\"", "url(", "@import"] { #expect(!html.contains(external), "\(external)") }
        // The throughput bar is the median of the three repetitions; the table shows the CSV's text.
        #expect(html.contains("data-category=\"dedicated\" data-series=\"sqlite\" data-value=\"200\""))
        #expect(html.contains("<td data-col=\"readings_per_s\">300</td>"))
    }

    @Test func fileSizeLinesCarryTheTimelinesPointsOfTheFirstRepetition() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SyntheticRun.write(SyntheticRun.csv(revision: "r", time: "t", readingsPerSecond: [1]), to: dir + "/run.csv")
        let header = "workload,engine,strategy,writers,batch_size,encryption,durability,repetition,elapsed_ms,file_bytes,live_objects,total_writes\n"
        let points = [("strata", "1", 0, 4096), ("strata", "1", 100, 12288), ("strata", "1", 200, 8192),
                      ("sqlite", "1", 0, 4096), ("sqlite", "1", 100, 20480),
                      ("strata", "2", 0, 999_999)]  // a second repetition is not drawn
        try SyntheticRun.write(header + points.map { "sensors,\($0.0),dedicated,1,1,off,full,\($0.1),\($0.2),\($0.3),0,0" }.joined(separator: "\n") + "\n",
                               to: dir + "/run.timeline.csv")
        let html = try RunHTMLReport.render(.init(runPath: dir + "/run.csv"))
        #expect(html.contains("data-title=\"sensors dedicated full\""))
        #expect(html.contains("data-series=\"strata\" data-points=\"3\" data-last=\"8192\" data-peak=\"12288\""))
        #expect(html.contains("data-series=\"sqlite\" data-points=\"2\" data-last=\"20480\" data-peak=\"20480\""))
        #expect(!html.contains("999999"))
    }

    @Test func aCSVThatIsNotARunReportIsATypedError() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SyntheticRun.write("a,b\n1,2\n", to: dir + "/other.csv")
        #expect { try RunHTMLReport.render(.init(runPath: dir + "/other.csv")) } throws: { ($0 as? BenchError)?.code == .invalidCSV }
        try SyntheticRun.write(SyntheticRun.csv(revision: "r", time: "t", readingsPerSecond: [1]), to: dir + "/run.csv")
        try SyntheticRun.write("x,y\n1,2\n", to: dir + "/run.timeline.csv")
        #expect { try RunHTMLReport.render(.init(runPath: dir + "/run.csv")) } throws: { ($0 as? BenchError)?.code == .invalidCSV }
        #expect { try RunHTMLReport.render(.init(runPath: dir + "/missing.csv")) } throws: { ($0 as? BenchError)?.code == .io }
    }

    @Test func theCommandWritesVerdictsAndTrendsAndRefusesBadInput() throws {
        let dir = try historyScratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SyntheticRun.write(SyntheticRun.csv(revision: "r1", time: "2026-11-01T00:00:00Z", readingsPerSecond: [1000, 1010, 990]), to: dir + "/base.csv")
        try SyntheticRun.write(SyntheticRun.csv(revision: "r2", time: "2026-11-02T00:00:00Z", readingsPerSecond: [300, 310, 290]), to: dir + "/run.csv")
        let imported = try CLI.run(["history", "import", "--history", "h.sqlite", "base.csv", "run.csv"], in: dir)
        #expect(imported.status == 0, "\(imported.stderr)")
        let report = try CLI.run(["report", "run.csv", "--baseline", "base.csv", "--history", "h.sqlite", "--out", "out/report.html"], in: dir)
        #expect(report.status == 0, "\(report.stderr)")
        let html = try String(contentsOfFile: dir + "/out/report.html", encoding: .utf8)
        #expect(html.contains("<td data-col=\"metric\">readings_per_s</td><td data-col=\"baseline\">1000</td><td data-col=\"current\">300</td>"))
        #expect(html.contains("<tr class=\"verdict-regressed\">"))
        #expect(html.contains("<table id=\"trends\">"))
        #expect(html.contains("<td data-col=\"revisions\">2</td><td data-col=\"first\">1000</td><td data-col=\"latest\">300</td>"))

        try SyntheticRun.write("a,b\n1,2\n", to: dir + "/other.csv")
        let bad = try CLI.run(["report", "other.csv", "--out", "bad.html"], in: dir)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("other.csv") && bad.stderr.contains("invalidCSV"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/bad.html"))
        let noHistory = try CLI.run(["report", "run.csv", "--history", "none.sqlite", "--out", "none.html"], in: dir)
        #expect(noHistory.status == 1)
        #expect(noHistory.stderr.contains("none.sqlite: no history there"), "\(noHistory.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/none.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/none.html"))
    }
}
