// strata-iotrace-probe: performs the file operations named on its command line, in order, so the
// interposer's tests (Tests/StrataBenchTests/Stress) can compare a trace with a known script.
//
//   strata-iotrace-probe --dir <dir> <op> <op> ...
//
// Paths are relative to <dir> (the probe changes into it, so relative-path resolution is tested).
// Operations (numbers decimal, BYTE the fill value 0...255):
//   create:P  open:P  opendir:P  append:P (O_APPEND)  close:P
//   write:P:LEN:BYTE  pwrite:P:OFF:LEN:BYTE  writev:P:LEN,LEN..:BYTE  pwritev:P:OFF:LEN,LEN..:BYTE
//   fsync:P  fdatasync:P  sfr:P:OFF:LEN  truncate:P:LEN  fallocate:P:OFF:LEN  pfallocate:P:OFF:LEN
//   mmap:P:LEN  mset:P:OFF:LEN:BYTE  msync:P:OFF:LEN  munmap:P
//   rename:A:B  unlink:P  ack:TEXT   (TEXT and a newline to IOTRACE_ACK_FD, default 1)
//   threads:P:N:COUNT  N threads each pwrite COUNT 512-byte blocks (thread t's k-th at block
//                      t * COUNT + k, filled with t + 1) and fdatasync after each, at once
// Each operation reports "<n> <op> ok" or "<n> <op> errno=<e>" on stderr (untraced) and the probe
// goes on; a malformed operation exits 2.
#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    FileHandleless.err(message + "\n")
    exit(2)
}

enum FileHandleless {
    static func err(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}

func number(_ text: Substring) -> Int {
    guard let value = Int(text) else { fail("not a number: \(text)") }
    return value
}


func filled(_ length: Int, _ byte: Substring) -> [UInt8] { [UInt8](repeating: UInt8(truncatingIfNeeded: number(byte)), count: length) }

/// Runs `body` with iovecs over buffers of the given lengths filled with `byte`.
func withVectors<R>(_ lengths: Substring, _ byte: Substring, _ body: ([iovec]) -> R) -> R {
    let buffers = lengths.split(separator: ",").map { filled(number($0), byte) }
    let pointers = buffers.map { buffer -> UnsafeMutableRawBufferPointer in
        let p = UnsafeMutableRawBufferPointer.allocate(byteCount: max(buffer.count, 1), alignment: 16)
        p.copyBytes(from: buffer)
        return p
    }
    defer { pointers.forEach { $0.deallocate() } }
    let vectors = zip(pointers, buffers).map { iovec(iov_base: $0.0.baseAddress, iov_len: $0.1.count) }
    return body(vectors)
}

/// One writer thread of `threads:`: its descriptor, first block, block count and fill byte.
struct ThreadWork {
    let fd: Int32
    let first: Int
    let count: Int
    let fill: UInt8
}

/// Runs the blocks of `threads:` on `n` POSIX threads (no Foundation: the probe stays small).
func writeFromThreads(fd: Int32, threads n: Int, count: Int) -> Int {
    var handles: [pthread_t] = []
    for t in 0..<n {
        let work = UnsafeMutablePointer<ThreadWork>.allocate(capacity: 1)
        work.initialize(to: ThreadWork(fd: fd, first: t * count, count: count, fill: UInt8(t + 1)))
        var handle = pthread_t()
        let started = pthread_create(&handle, nil, { raw in
            guard let work = raw?.assumingMemoryBound(to: ThreadWork.self) else { return nil }
            let block = [UInt8](repeating: work.pointee.fill, count: 512)
            for k in 0..<work.pointee.count {
                _ = block.withUnsafeBytes { pwrite(work.pointee.fd, $0.baseAddress, 512, off_t((work.pointee.first + k) * 512)) }
                _ = fdatasync(work.pointee.fd)
            }
            work.deallocate()
            return nil
        }, work)
        guard started == 0 else { return -1 }
        handles.append(handle)
    }
    for handle in handles { pthread_join(handle, nil) }
    return 0
}

/// fallocate(2) and sync_file_range(2) are GNU extensions Swift's Glibc module leaves out; looked
/// up by name they resolve to the preloaded interposer first, as a C caller's would.
func cFunction<F>(_ name: String, as type: F.Type) -> F {
    guard let symbol = dlsym(nil, name) else { fail("no \(name) in the C library") }
    return unsafeBitCast(symbol, to: type)
}

func run() {
    var arguments = Array(CommandLine.arguments.dropFirst())
    guard arguments.count >= 2, arguments[0] == "--dir" else { fail("usage: strata-iotrace-probe --dir <dir> <op>...") }
    guard chdir(arguments[1]) == 0 else { fail("cannot enter \(arguments[1])") }
    arguments.removeFirst(2)

    var descriptors: [String: Int32] = [:]
    var mappings: [String: (UnsafeMutableRawPointer, Int)] = [:]
    let ackFD = Int32(String(cString: getenv("IOTRACE_ACK_FD") ?? strdup("1")!)) ?? 1

    func descriptor(_ path: Substring) -> Int32 {
        guard let fd = descriptors[String(path)] else { fail("not open: \(path)") }
        return fd
    }
    let fallocate = cFunction("fallocate", as: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32).self)
    let syncFileRange = cFunction("sync_file_range", as: (@convention(c) (Int32, off_t, off_t, UInt32) -> Int32).self)
    let pwritev2 = cFunction("pwritev2", as: (@convention(c) (Int32, UnsafePointer<iovec>, Int32, off_t, Int32) -> Int).self)
    let rwfDSync: Int32 = 2  // RWF_DSYNC (linux/fs.h), which Glibc's module does not export

    for (index, op) in arguments.enumerated() {
        let parts = op.split(separator: ":", omittingEmptySubsequences: false)
        let name = parts[0]
        func part(_ i: Int) -> Substring {
            guard i < parts.count else { fail("\(op): missing argument \(i)") }
            return parts[i]
        }
        var result: Int = 0
        switch name {
        case "create", "open", "opendir", "append", "opendsync":
            let flags = name == "create" ? O_CREAT | O_RDWR : name == "open" ? O_RDWR
                : name == "append" ? O_RDWR | O_APPEND : name == "opendsync" ? O_RDWR | O_DSYNC : O_RDONLY | O_DIRECTORY
            let fd = open(String(part(1)), flags, 0o644)
            if fd >= 0 { descriptors[String(part(1))] = fd }
            result = Int(fd)
        case "close":
            result = Int(close(descriptor(part(1))))
            descriptors[String(part(1))] = nil
        case "write":
            result = filled(number(part(2)), part(3)).withUnsafeBytes { write(descriptor(part(1)), $0.baseAddress, $0.count) }
        case "pwrite":
            result = filled(number(part(3)), part(4)).withUnsafeBytes {
                pwrite(descriptor(part(1)), $0.baseAddress, $0.count, off_t(number(part(2))))
            }
        case "dsyncwrite":  // pwritev2 with RWF_DSYNC: durable when it returns, this range only
            result = filled(number(part(3)), part(4)).withUnsafeBytes { buffer in
                var vector = iovec(iov_base: UnsafeMutableRawPointer(mutating: buffer.baseAddress), iov_len: buffer.count)
                return pwritev2(descriptor(part(1)), &vector, 1, off_t(number(part(2))), rwfDSync)
            }
        case "writev":
            result = withVectors(part(2), part(3)) { writev(descriptor(part(1)), $0, Int32($0.count)) }
        case "pwritev":
            result = withVectors(part(3), part(4)) { pwritev(descriptor(part(1)), $0, Int32($0.count), off_t(number(part(2)))) }
        case "fsync":
            result = Int(fsync(descriptor(part(1))))
        case "fdatasync":
            result = Int(fdatasync(descriptor(part(1))))
        case "sfr":
            result = Int(syncFileRange(descriptor(part(1)), off_t(number(part(2))), off_t(number(part(3))),
                                         6)) // SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER
        case "truncate":
            result = Int(ftruncate(descriptor(part(1)), off_t(number(part(2)))))
        case "fallocate":
            result = Int(fallocate(descriptor(part(1)), 0, off_t(number(part(2))), off_t(number(part(3)))))
        case "pfallocate":
            let code = posix_fallocate(descriptor(part(1)), off_t(number(part(2))), off_t(number(part(3))))
            if code != 0 { errno = code; result = -1 }
        case "mmap":
            let length = number(part(2))
            let p = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor(part(1)), 0)
            if let p, p != MAP_FAILED { mappings[String(part(1))] = (p, length) } else { result = -1 }
        case "mset":
            guard let (base, length) = mappings[String(part(1))], number(part(2)) + number(part(3)) <= length else {
                fail("\(op): not mapped or out of the mapping")
            }
            memset(base + number(part(2)), Int32(number(part(4))), number(part(3)))
        case "msync":
            guard let (base, _) = mappings[String(part(1))] else { fail("\(op): not mapped") }
            result = Int(msync(base + number(part(2)), number(part(3)), MS_SYNC))
        case "munmap":
            guard let (base, length) = mappings.removeValue(forKey: String(part(1))) else { fail("\(op): not mapped") }
            result = Int(munmap(base, length))
        case "rename":
            result = Int(rename(String(part(1)), String(part(2))))
        case "unlink":
            result = Int(unlink(String(part(1))))
        case "threads":
            result = writeFromThreads(fd: descriptor(part(1)), threads: number(part(2)), count: number(part(3)))
        case "ack":
            result = Array((String(part(1)) + "\n").utf8).withUnsafeBytes { write(ackFD, $0.baseAddress, $0.count) }
        default:
            fail("unknown operation \(op)")
        }
        FileHandleless.err(result < 0 ? "\(index + 1) \(name) errno=\(errno)\n" : "\(index + 1) \(name) ok\n")
    }
}

run()
