import Foundation
import Testing
import StrataBench

@Suite("run options and plans")
struct RunPlanTests {
    @Test func noOptionsRunsTheSensorsSuiteOnEveryEngine() throws {
        let cases = try RunPlan.make(RunOptions())
        // The built-in engines; LMDB and SQLCipher run when named.
        let engines = Engines.defaultKinds
        #expect(engines == [.strata, .sqlite])
        #expect(cases.count == StrategyKind.allCases.count * engines.count)
        #expect(Set(cases.map(\.strategy)) == Set(StrategyKind.allCases))
        // The first question a user asks: Strata against SQLite, at the same durability.
        #expect(Set(cases.map(\.engine)) == Set(engines))
        #expect(cases.allSatisfy { $0.workload == .sensors && $0.duration == 10 })
        #expect(cases.allSatisfy { $0.durability == .full && $0.encryption == .off && $0.readings == nil })
        #expect(cases.first { $0.strategy == .gcd }?.writers == RunPlan.defaultGCDWriters)
        #expect(cases.first { $0.strategy == .threads }?.writers == RunPlan.defaultThreadWriters)
        #expect(cases.filter { !$0.strategy.hasConcurrentWriters }.allSatisfy { $0.writers == 1 })
        #expect(cases.first { $0.strategy == .batched }?.batchSize == 1_000)
        #expect(cases.first { $0.strategy == .dedicated }?.batchSize == 1)
    }

    @Test func smokeIsCountBoundWithThreeRepetitionsSpreadOverTheRun() throws {
        var options = RunOptions()
        options.suite = .smoke
        let cases = try RunPlan.make(options)
        #expect(cases.allSatisfy { $0.readings != nil && $0.duration == nil })
        #expect(Set(cases.map(\.engine)) == Set(Engines.defaultKinds))
        // Every write workload; the gate's baselines hold no read case yet.
        #expect(Set(cases.map(\.workload)) == Set(WorkloadKind.allCases).subtracting([.reads, .scale]))
        #expect(Set(cases.map(\.repetition)) == [1, 2, 3])
        // Repetition is outermost: the first third of the plan is repetition 1.
        #expect(cases.prefix(cases.count / 3).allSatisfy { $0.repetition == 1 })
        // The encryption workload runs off and on.
        #expect(cases.filter { $0.workload == .encryption && $0.repetition == 1 && $0.engine == cases[0].engine }
            .map(\.encryption) == [.off, .on])
        // Gated timings run without a flush per commit; the sensors cases also run durable.
        #expect(Set(cases.filter { $0.workload == .sensors }.map(\.durability)) == [.unsafe, .full])
        #expect(cases.filter { $0.workload != .sensors }.allSatisfy { $0.durability == .unsafe })
        let batched = cases.first { $0.workload == .sensors && $0.strategy == .batched && $0.durability == .unsafe }
        #expect((batched?.readings ?? 0) > 3 * SensorModel.keep)
    }

    @Test func explicitFlagsOverrideTheSuite() throws {
        var options = RunOptions()
        options.workloads = [.sensors]
        options.strategies = ["gcd", "batched", "threads"]
        options.readings = 90
        options.writers = 4
        options.batchSize = 10
        options.maxDelayMs = 5
        options.rate = 300
        options.durability = .unsafe
        options.encryption = .both
        options.repetitions = 2
        options.engines = ["sqlite"]
        let cases = try RunPlan.make(options)
        #expect(cases.count == 3 * 2 * 2)
        #expect(cases.allSatisfy { $0.readings == 90 && $0.duration == nil && $0.rate == 300 && $0.durability == .unsafe })
        #expect(cases.first { $0.strategy == .gcd }?.writers == 4)
        #expect(cases.first { $0.strategy == .threads }?.writers == 4)
        #expect(cases.first { $0.strategy == .batched }?.batchSize == 10)
        #expect(cases.allSatisfy { $0.maxDelayMs == 5 })
    }

    @Test func allExpandsStrategiesAndEngines() throws {
        var options = RunOptions()
        options.strategies = ["all", "gcd"]
        options.engines = ["all"]
        let cases = try RunPlan.make(options)
        // Every available engine but the reference store, which runs only when named.
        let engines = EngineKind.allCases.filter { Engines.isAvailable($0) && $0 != .reference }
        #expect(cases.count == StrategyKind.allCases.count * engines.count)
        #expect(Set(cases.map(\.engine)) == Set(engines))
    }

    @Test func storeWorkloadsStayCountBoundUnderDuration() throws {
        var options = RunOptions()
        options.workloads = [.bulkInsert, .sensors]
        options.duration = 2
        let cases = try RunPlan.make(options)
        #expect(cases.first { $0.workload == .bulkInsert }?.readings != nil)
        #expect(cases.first { $0.workload == .sensors }?.duration == 2)
    }

    static let invalid: [(String, @Sendable (inout RunOptions) -> Void, String)] = [
        ("zero duration", { $0.duration = 0 }, "--duration"),
        ("duration and readings", { $0.duration = 1; $0.readings = 5 }, "--duration and --readings"),
        ("zero readings", { $0.readings = 0 }, "--readings"),
        ("zero batch", { $0.batchSize = 0 }, "--batch-size"),
        ("negative delay", { $0.maxDelayMs = -1 }, "--max-delay"),
        ("zero writers", { $0.writers = 0 }, "--writers"),
        ("zero rate", { $0.rate = 0 }, "--rate"),
        ("infinite rate", { $0.rate = .infinity }, "--rate"),
        ("zero repetitions", { $0.repetitions = 0 }, "--repetitions"),
        ("unknown engine", { $0.engines = ["oracle"] }, "--engine oracle"),
        ("unknown strategy", { $0.strategies = ["fibers"] }, "--strategy fibers"),
    ]

    @Test(arguments: 0..<invalid.count)
    func invalidOptionsAreTypedErrorsNamingTheFlag(index: Int) {
        let (_, change, flag) = Self.invalid[index]
        var options = RunOptions()
        change(&options)
        let error = #expect(throws: BenchError.self) { try RunPlan.make(options) }
        #expect(error?.code == .invalidOption)
        #expect(error?.message.contains(flag) == true)
    }

    @Test func anUnavailableEngineIsRefused() throws {
        guard !Engines.isAvailable(.strata) else { return }
        var options = RunOptions()
        options.engines = ["strata"]
        let error = #expect(throws: BenchError.self) { try RunPlan.make(options) }
        #expect(error?.message.contains("not available") == true)
    }

    @Test func choicesParseExactSpellings() throws {
        #expect(try Choice.parse("bulk-insert", flag: "--workload", as: WorkloadKind.self) == .bulkInsert)
        #expect(try Choice.parse("both", flag: "--encryption", as: EncryptionChoice.self) == .both)
        let error = #expect(throws: BenchError.self) { try Choice.parse("fast", flag: "--durability", as: Durability.self) }
        #expect(error?.message == "--durability fast: unknown value (expected one of: full, unsafe, memory)")
    }

    @Test func caseKeysIgnoreTheRepetitionOnly() throws {
        let one = CaseSpec(workload: .sensors, engine: .sqlite, strategy: .gcd, writers: 64, repetition: 1)
        var two = one
        two.repetition = 2
        #expect(one.key == two.key)
        two.writers = 8
        #expect(one.key != two.key)
        // The key's text is what committed baselines and the history store: it must not drift.
        #expect(one.key == "sensors/sqlite/gcd/w64/b1/enc-off/full/closed/d100/time")
        let row = ["workload": "sensors", "engine": "sqlite", "strategy": "gcd", "writers": "64", "batch_size": "1",
                   "encryption": "off", "durability": "full", "rate": "", "max_delay_ms": "100", "bound": "time",
                   "target_readings": "", "repetition": "3", "lost": "0"]
        let table = CSVTable(header: Array(row.keys), rows: [Array(row.values)])
        let parsed = try #require(try? SummaryValidation.records(table, path: "x.csv", role: .current).first)
        #expect(parsed.settings.key == one.key)
        #expect(parsed.settings == CaseSettings(one))
        #expect(parsed.repetition == 3)
        // Count-bound cases of different sizes, and a time-bound one, are different cases.
        var counted = one
        counted.readings = 1_000
        var more = counted
        more.readings = 10_000
        #expect(counted.key != one.key && counted.key != more.key)
    }
}
