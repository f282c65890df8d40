// Machine metadata written into every CSV row, so that a row read alone says where it was made.
//
// Invariants: gathered once per process; never fails (unknown parts read "unknown"). `host` is
// the host name plus a fingerprint of the hardware and kernel ("vm/3f9a0c21"): VMs of one image
// share a host name ("vm" everywhere here), so the name alone would call two different machines
// the same host and `compare`'s host warning would never fire. The fingerprint is a hash of CPU
// model, cores, memory (whole GiB, so a few MiB of firmware reservation do not change it) and
// kernel release; the parts themselves are columns too (cpu_model, cores, memory_bytes, kernel).

import Foundation
import Strata
import StrataBuildRevision

public struct MachineInfo: Sendable, Equatable {
    /// Host name and hardware fingerprint, `name/xxxxxxxx`.
    public var host: String
    public var cpuModel: String
    public var cores: Int
    /// Physical memory in bytes (0 when unknown).
    public var memoryBytes: UInt64 = 0
    /// Kernel release (`uname -r`).
    public var kernel: String = "unknown"
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

    /// Reads the current machine; `gitRevision` is the revision this binary was built from.
    public static func current() -> MachineInfo {
        let cpu = cpuModelName()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let memory = ProcessInfo.processInfo.physicalMemory
        let kernel = kernelRelease()
        var info = MachineInfo(host: identity(hostName: ProcessInfo.processInfo.hostName, cpuModel: cpu, cores: cores,
                                              memoryBytes: memory, kernel: kernel),
                               cpuModel: cpu, cores: cores, os: osName(), swiftVersion: compilerVersion,
                               build: buildConfiguration, gitRevision: BuildRevision.current)
        info.memoryBytes = memory
        info.kernel = kernel
        return info
    }

    /// `name/xxxxxxxx`: the host name and 32 bits of an FNV-1a hash of the hardware and kernel.
    public static func identity(hostName: String, cpuModel: String, cores: Int, memoryBytes: UInt64, kernel: String) -> String {
        let gib = (memoryBytes + (1 << 29)) >> 30
        let facts = "\(cpuModel)|\(cores)|\(gib)|\(kernel)"
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in facts.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let name = hostName.isEmpty ? "unknown" : hostName
        return name + "/" + String(format: "%08x", UInt32(truncatingIfNeeded: hash ^ (hash >> 32)))
    }

    /// What `strata-bench --version` prints: the release, the revision the binary was built from
    /// (the one every row of a run records as git_rev), the build and the compiler.
    public static func versionLine() -> String {
        "strata-bench \(StrataVersion.release) (revision \(BuildRevision.current), \(buildConfiguration) build, Swift \(compilerVersion))"
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
        return "\(name) \(kernelRelease())"
    }

    static func kernelRelease() -> String {
        var system = utsname()
        guard uname(&system) == 0 else { return "unknown" }
        return withUnsafeBytes(of: &system.release) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

}
