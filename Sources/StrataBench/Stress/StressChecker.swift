// The checker child's work (`strata-bench stress-check`): open the store the way its engine
// recovers it (`Engines.open` on the directory as it was left: SQLite replays its WAL, LMDB reads
// its newest meta page, Strata its newest committed version), read every sensor's list fully,
// then run the engine's own integrity check. Recovery time is open plus read.
//
// Nothing here throws: every failure becomes part of the report, so the parent always gets one
// JSON object (or a crash or hang, which it counts).

import Foundation

public enum StressChecker {
    public static func check(engine: EngineKind, durability: Durability, encryption: EncryptionSetting,
                             directory: String) -> CheckReport {
        let key = encryption == .on ? StressKey.bytes : nil
        let started = DispatchTime.now().uptimeNanoseconds
        let store: any BenchEngine
        do {
            store = try Engines.open(engine, EngineConfiguration(directory: directory, durability: durability, encryptionKey: key))
        } catch {
            return CheckReport(engine: engine.rawValue, opened: false, error: failure(error))
        }
        defer { try? store.close() }
        var sensors: [String: [[Int64]]] = [:]
        do {
            let reader = try store.makeReader(placement: .currentThread)
            defer { reader.close() }
            for symbol in try reader.sensors() {
                sensors[symbol] = CheckReport.ranges(try reader.sequences(sensor: symbol))
            }
        } catch {
            return CheckReport(engine: engine.rawValue, opened: true, sensors: sensors, error: failure(error))
        }
        let recoveryMs = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
        let problems: [String]
        do {
            problems = try store.integrityProblems()
        } catch {
            problems = ["the integrity check itself failed: \(error)"]
        }
        return CheckReport(engine: engine.rawValue, opened: true, sensors: sensors, problems: problems, recoveryMs: recoveryMs)
    }

    static func failure(_ error: any Error) -> CheckReport.Failure {
        if let error = error as? BenchError { return CheckReport.Failure(code: error.code.rawValue, message: error.message) }
        return CheckReport.Failure(code: BenchError.Code.engine.rawValue, message: "\(error)")
    }
}
