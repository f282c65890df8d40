// Sends exported history to a server that accepts InfluxDB line protocol over HTTP (InfluxDB 1.x
// `/write`, which VictoriaMetrics also accepts).
//
// Invariants: only http and https URLs with a host; the body is sent once (POST, text/plain); a
// server that cannot be reached, times out, or answers anything but 2xx is
// `BenchError(.io)` naming the URL and the status and start of the answer. Pushing never writes
// to the local history.

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

public enum HistoryPush {
    /// Posts `body` to `url`; returns the HTTP status (2xx).
    @discardableResult
    public static func push(_ body: String, to url: String, timeout: TimeInterval = 30) async throws -> Int {
        guard let target = URL(string: url), let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
              target.host?.isEmpty == false else {
            throw BenchError(.invalidOption, "--push \(url): not an http(s) URL with a host, e.g. http://127.0.0.1:8428/write")
        }
        var request = URLRequest(url: target, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("text/plain; charset=utf-8", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, status): (Data, Int) = try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: BenchError(.io, "cannot reach \(url): \(error.localizedDescription)"))
                } else if let response = response as? HTTPURLResponse {
                    continuation.resume(returning: (data ?? Data(), response.statusCode))
                } else {
                    continuation.resume(throwing: BenchError(.io, "\(url) gave no HTTP answer"))
                }
            }.resume()
        }
        guard (200..<300).contains(status) else {
            let answer = String(decoding: data.prefix(300), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw BenchError(.io, "\(url) refused the write: HTTP \(status)\(answer.isEmpty ? "" : ": " + answer)")
        }
        return status
    }
}
