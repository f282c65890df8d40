// Decisions taken from the fuzzer's bytes, one at a time: the generating targets (the query
// oracle's objects and predicates) read their choices here, so a mutation of a byte changes one
// decision and libFuzzer's coverage guidance steers the structure. Past the end every choice is 0,
// which always picks the smallest alternative, so every input, even empty, generates something
// finite.
struct ByteChoices {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isExhausted: Bool { position >= bytes.count }

    /// A number in 0..<count (count ≥ 1).
    mutating func below(_ count: Int) -> Int {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return Int(bytes[position]) % count
    }

    mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }

    mutating func bool() -> Bool { below(2) == 1 }
}
