// strata-fuzz: one executable for every fuzz target (Fuzz/StrataFuzz), so a fuzz build links
// once rather than once per target.
//
//   strata-fuzz --list                        the targets and their invariants
//   strata-fuzz --seed=<target> <folder>      writes the target's generated seeds (binary files)
//   strata-fuzz --target=<target> <paths…>    normal build: replays every file under the paths
//   strata-fuzz --target=<target> <libFuzzer arguments…>
//                                             built with -DFUZZING -sanitize=fuzzer (scripts/fuzz):
//                                             libFuzzer's driver. libFuzzer ignores arguments
//                                             starting with "--" and passes them on to the
//                                             processes it starts (-merge, -fork), so each of them
//                                             finds its target again.
//
// libFuzzer's own main is not used: SwiftPM links an executable's entry point under another
// name, so this main starts libFuzzer's driver itself (LLVMFuzzerRunDriver).
import Foundation
import StrataFuzz

#if FUZZING
/// The target the C callback runs (a @convention(c) function captures nothing); set once, before
/// the driver starts.
nonisolated(unsafe) var selectedTarget: (any FuzzTarget.Type)?

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let target = selectedTarget else { return 0 }
    FuzzCommand.runOrAbort(target, size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt
#endif

@main
struct StrataFuzzMain {
    static func main() {
        switch FuzzCommand.parse(Array(CommandLine.arguments.dropFirst())) {
        case .done(let status):
            exit(status)
        case .target(let target, let paths):
            #if FUZZING
            _ = paths
            selectedTarget = target
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(runFuzzerDriver(&argc, &argv, fuzzOneInput))
            #else
            exit(FuzzCommand.replay(target, paths: paths))
            #endif
        }
    }
}
