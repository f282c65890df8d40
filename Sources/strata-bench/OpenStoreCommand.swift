// `strata-bench open-store` (hidden): opens the read store a scale case filled and closes it, so
// that the parent run can time a first open in a fresh process (`ScaleWorkload.firstOpen`).
// Exit 0 when the store opened; 1 with the engine's error on stderr; 64 bad usage.

import ArgumentParser
import Foundation
import StrataBench

struct OpenStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open-store",
        abstract: "Open a filled read store and close it (the scale workload's first-open child).",
        shouldDisplay: false)

    @Option(help: "The engine that filled the store.")
    var engine: String
    @Option(help: ArgumentHelp("The case directory holding the store.", valueName: "dir"))
    var dir: String
    @Option(help: "full, unsafe or memory (as the store was filled).")
    var durability: String = Durability.unsafe.rawValue

    func run() throws {
        let kind: EngineKind
        let durability: Durability
        do {
            kind = try Choice.parse(engine, flag: "--engine", as: EngineKind.self)
            durability = try Choice.parse(self.durability, flag: "--durability", as: Durability.self)
        } catch let error as BenchError {
            throw ValidationError(error.message)
        }
        // Opening an empty directory would create a store: that is not a first open.
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        guard !contents.isEmpty else {
            note("error: \(dir) holds no store")
            throw ExitCode(1)
        }
        do {
            let store = try Engines.openReadStore(kind, EngineConfiguration(directory: dir, durability: durability))
            try store.close()
        } catch let error as BenchError {
            note("error: \(error)")
            throw ExitCode(1)
        }
    }
}
