// Runs a body on a fresh thread and waits for it: what another thread's realm instance sees of a
// file is what the file holds, not what the caller's instance remembers.
import Foundation

private final class ThreadResult<T>: @unchecked Sendable {
    // @unchecked: written once by the thread before `done` is signalled, read after the wait.
    var value: Result<T, any Error>?
    let done = DispatchSemaphore(value: 0)
}

/// The value `body` returns (or the error it throws) when run on a new thread.
func onAnotherThread<T>(_ body: @escaping @Sendable () throws -> T) throws -> T {
    let box = ThreadResult<T>()
    let thread = Thread {
        box.value = Result { try body() }
        box.done.signal()
    }
    thread.start()
    box.done.wait()
    return try box.value!.get()
}
