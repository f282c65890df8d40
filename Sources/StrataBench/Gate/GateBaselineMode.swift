// The gate without a base build: the current build's smoke suite (every engine, 3 repetitions)
// against the committed smoke baseline, and its counted pass against the committed counters
// baseline. A baseline made on other days and hosts is judged with the wide band of `compare`, and
// a timing regression must show twice (a second smoke pass, Confirmation.swift).
//
// The runs start in the gate's working directory (the checkout), so their rows record the tree's
// revision; `current.csv` is the first pass.

import Foundation

extension GateRunner {
    /// The smoke baseline beside the counters baseline (results/baselines/smoke.csv).
    var smokeBaseline: String {
        ((settings.countersBaseline as NSString).deletingLastPathComponent as NSString).appendingPathComponent("smoke.csv")
    }

    func againstBaselines() throws -> Int32 {
        log("smoke suite (3 repetitions, every engine) against \(smokeBaseline)")
        try smokePass(path("smoke.csv"), environment: [:], extra: ["--engine", "all"])
        let options = ComparisonOptions()
        var judged = try Comparison.compare(baselinePath: smokeBaseline, currentPath: path("smoke.csv"), options: options)
        if judged.exitCode == 2 {
            log("confirmation pass")
            try smokePass(path("smoke-retry.csv"), environment: [:], extra: ["--engine", "all"])
            judged = try Comparison.compare(baselinePath: smokeBaseline, currentPath: path("smoke.csv"),
                                            confirmingPath: path("smoke-retry.csv"), options: options)
        }
        let markdown = Comparison.render(judged, format: .markdown, verbose: false)
        try CSVWriter.write(markdown, to: path("timings.md"))
        try CSVWriter.write(Comparison.render(judged, format: .csv), to: path("timings.csv"))
        let kept = markdown.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasPrefix("### ") ? "" : String($0) }
        try report("\n## Timings against the committed baseline (wide band; no base revision to pair with)\n\n" + kept.joined(separator: "\n"))
        try copy(path("smoke.csv"), to: path("current.csv"))

        // The counted pass: allocator caches off so every heap request is counted at once (CounterGate).
        log("counted pass")
        try smokePass(path("counters-current.csv"), environment: ["MALLOC_CONF": "tcache:false"], extra: ["--repetitions", "1"])
        let counted = try judgeCounters(baseline: settings.countersBaseline, label: "against \(settings.countersBaseline)")
        return GateRounds.severest(judged.exitCode, counted)
    }

    /// One smoke run of the current build; a run that did not finish ends the gate.
    func smokePass(_ out: String, environment: [String: String], extra: [String]) throws {
        let words = [settings.currentBinary, "run", "--suite", "smoke"] + extra
            + ["--quiet", "--no-history", "--out", out, "--timeline", Self.timeline(of: out)]
        let status = try wait(start(words, environment: environment, directory: FileManager.default.currentDirectoryPath))
        guard GateRounds.caseFinished(status) else {
            throw BenchError(.childProtocol, "the smoke run \((out as NSString).lastPathComponent) failed (exit \(status))")
        }
    }
}
