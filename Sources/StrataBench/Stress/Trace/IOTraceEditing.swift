// A trace with records taken out: how the tests show that the harness catches a missing flush
// without a deliberately broken engine in the product — a real writer's trace, minus the flush
// of one commit, is the trace of an engine that forgot it.

extension IOTrace {
    /// The trace's bytes without the records at `indices` (the others keep their bytes, their
    /// checksums and their order), parsed again: indices after a removed record shift down.
    public func removingRecords(_ indices: Set<Int>) throws(BenchError) -> IOTrace {
        let reader = ByteReader(bytes: bytes)
        // The file header gives its own size; records follow back to back, each led by its size.
        var at = Int(reader.u32(12))
        var kept = Array(bytes[0..<at])
        for index in records.indices {
            let size = Int(reader.u32(at))
            if !indices.contains(index) { kept += bytes[at..<(at + size)] }
            at += size
        }
        return try IOTrace(bytes: kept, path: "<trace without records \(indices.sorted())>")
    }
}
