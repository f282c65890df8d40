// Machine metadata written into every CSV row, so that a row read alone says where it was made.
//
// Invariant: gathered once per process; never fails (unknown parts read "unknown").

import Foundation

public struct MachineInfo: Sendable, Equatable {
    public var host: String
    public var cpuModel: String
    public var cores: Int
    public var os: String
    public var swiftVersion: String
    /// "debug" or "release": how StrataBench itself was compiled.
    public var build: String
    public var gitRevision: String

    public init(host: String, cpuModel: String, cores: Int, os: String, swiftVersion: String, build: String, gitRevision: String) {
        self.host = host
        self.cpuModel = cpuModel
        self.cores = cores
        self.os = os
        self.swiftVersion = swiftVersion
        self.build = build
        self.gitRevision = gitRevision
    }

    /// Reads the current machine. `gitDirectory` is where `git rev-parse` runs (the checkout).
    public static func current(gitDirectory: String = FileManager.default.currentDirectoryPath) -> MachineInfo {
        MachineInfo(host: ProcessInfo.processInfo.hostName,
                    cpuModel: cpuModelName(),
                    cores: ProcessInfo.processInfo.activeProcessorCount,
                    os: osName(),
                    swiftVersion: compilerVersion,
                    build: buildConfiguration,
                    gitRevision: gitRevision(in: gitDirectory))
    }

    public static var buildConfiguration: String {
        #if DEBUG
        return "debug"
        #else
        return "release"
        #endif
    }

    static var compilerVersion: String {
        #if compiler(>=6.4)
        return "6.4+"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #elseif compiler(>=6.1)
        return "6.1"
        #else
        return "6.0"
        #endif
    }

    static func cpuModelName() -> String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown"
    }

    static func osName() -> String {
        var name = "Linux"
        if let text = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8) {
            for line in text.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
                name = String(line.dropFirst("PRETTY_NAME=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        var system = utsname()
        uname(&system)
        let release = withUnsafeBytes(of: &system.release) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return "\(name) \(release)"
    }

    /// `git describe --always --dirty --abbrev=12`, or `STRATA_GIT_REV`, or "unknown".
    static func gitRevision(in directory: String) -> String {
        if let fixed = ProcessInfo.processInfo.environment["STRATA_GIT_REV"], !fixed.isEmpty { return fixed }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", directory, "describe", "--always", "--dirty", "--abbrev=12"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return process.terminationStatus == 0 && !text.isEmpty ? text : "unknown"
        } catch {
            return "unknown"
        }
    }
}
