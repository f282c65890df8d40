import Testing
import StrataBench

@Suite("stress ack protocol")
struct AckLogTests {
    @Test func parsesBeginsAndAcks() throws {
        let text = "ready\n" + AckLog.beginLine("w0-1", [AckPart(sensor: "w0-o3", first: 1, last: 2), AckPart(sensor: "w0-no2", first: 1, last: 2)])
            + AckLog.beginLine("w1-1", [AckPart(sensor: "w1-o3", first: 1, last: 1)]) + AckLog.ackLine("w0-1")
        let log = try AckLog.parse(text)
        #expect(log.ready)
        #expect(!log.done)
        #expect(log.transactions.count == 2)
        #expect(log.transactions[0].parts == [AckPart(sensor: "w0-o3", first: 1, last: 2), AckPart(sensor: "w0-no2", first: 1, last: 2)])
        #expect(log.transactions[0].acknowledged)
        #expect(!log.transactions[1].acknowledged)
        #expect(log.acknowledgedCount == 1)
        #expect(try AckLog.parse("") == AckLog())
    }

    @Test(arguments: [
        ("ready\nbogus w0-1\n", 2),
        ("ack w0-1\n", 1),
        ("begin w0-1 w0-o3:5-3\n", 1),
        ("begin w0-1 w0-o3:0-1\n", 1),
        ("begin w0-1 w0-o3:1-x\n", 1),
        ("begin w0-1 w0-o3:1-2,\n", 1),
        ("begin w0-1\n", 1),
        ("begin w 0 w0-o3:1-1\n", 1),
        ("begin w0-1 w0-o3:1-1\nbegin w0-1 w0-o3:2-2\n", 2),
        ("begin w0-1 w0-o3:1-1\nack w0-1\nack w0-1\n", 3),
        ("begin w0-1 w0-o3:1-1\nack w0-1", 2),
        ("ready \n", 1),
    ])
    func badLinesAreTypedErrorsNamingTheLine(text: String, line: Int) {
        #expect {
            try AckLog.parse(text, source: "test pipe")
        } throws: { error in
            guard let error = error as? BenchError else { return false }
            return error.code == .childProtocol && error.line == line && error.path == "test pipe"
        }
    }

    @Test func checkerOutputThatIsNotAReportIsATypedError() throws {
        #expect(throws: BenchError.self) { try CheckReport.parse("Segmentation fault") }
        #expect(throws: BenchError.self) { try CheckReport.parse(#"{"engine":"x","opened":true,"sensors":{"a":[[3,1]]},"problems":[]}"#) }
        let report = CheckReport(engine: "lmdb", opened: true, sensors: ["w0-o3": [[1, 4]]], recoveryMs: 2)
        #expect(try CheckReport.parse(report.json()) == report)
    }
}
