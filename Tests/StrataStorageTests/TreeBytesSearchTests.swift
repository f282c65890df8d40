// Point lookups, lower bounds and ranks in a BytesTree for the key shapes a store gives it:
// integers little- and big-endian behind a tag byte (primary keys, index entries), numbered
// names, skewed values, keys alike for their first ten bytes, and chains of proper prefixes.
// Each is checked against a sorted model for every stored key and for keys just beside it.

import Foundation
import Testing
@testable import StrataStorage

@Suite struct TreeBytesSearchTests {
    enum Shape: String, CaseIterable, CustomStringConvertible {
        case taggedLittleEndian, taggedBigEndian, numberedNames, skewed, alikeForTenBytes, prefixChains
        var description: String { rawValue }

        func keys(_ count: Int) -> [[UInt8]] {
            var rng = SplitMix64(seed: 7)
            switch self {
            case .taggedLittleEndian:
                return (0..<count).map { i in [1] + withUnsafeBytes(of: Int64(i * 3).littleEndian, Array.init) }
            case .taggedBigEndian:
                return (0..<count).map { i in [1] + withUnsafeBytes(of: Int64(i * 3).bigEndian, Array.init) }
            case .numberedNames:
                return (0..<count).map { Array(String(format: "sensor-%07d", $0 * 7).utf8) }
            case .skewed:
                // Most keys crowd at the low end of the leading word, a few spread far above.
                return (0..<count).map { _ in
                    let exponent = UInt64.random(in: 0..<64, using: &rng) % 40
                    let value = (UInt64(1) << exponent) &+ UInt64.random(in: 0..<1024, using: &rng)
                    return withUnsafeBytes(of: value.bigEndian, Array.init)
                }
            case .alikeForTenBytes:
                let head = Array("0123456789".utf8)
                return (0..<count).map { i in head + [UInt8(i % 2 == 0 ? 0x20 : 0x40)] + withUnsafeBytes(of: UInt32(i).bigEndian, Array.init) }
            case .prefixChains:
                // Keys that are proper prefixes of others, of lengths 0 to 12.
                return (0..<count).map { _ in (0..<Int.random(in: 0...12, using: &rng)).map { _ in UInt8.random(in: 0...2, using: &rng) } }
            }
        }
    }

    static func less(_ a: [UInt8], _ b: [UInt8]) -> Bool { a.lexicographicallyPrecedes(b) }

    /// Keys beside `key` that the tree may or may not hold.
    static func neighbours(_ key: [UInt8]) -> [[UInt8]] {
        var out = [key + [0], Array(key.dropLast())]
        if let last = key.last {
            if last > 0 { out.append(key.dropLast() + [last - 1]) }
            if last < 255 { out.append(key.dropLast() + [last + 1]) }
        }
        return out
    }

    @Test(arguments: Shape.allCases)
    func lookupsFindExactlyTheStoredKeys(shape: Shape) throws {
        let pages = TreeTestPages()
        var tree = BytesTree()
        var model: [[UInt8]: [UInt8]] = [:]
        for (i, key) in shape.keys(5_000).enumerated() {
            let value = withUnsafeBytes(of: UInt32(i).littleEndian, Array.init)
            _ = try key.withUnsafeBytes { k in try value.withUnsafeBytes { try tree.put(k, $0, in: pages) } }
            model[key] = value
        }
        pages.commit()
        let sorted = model.keys.sorted(by: Self.less)
        #expect(try TreeShapeCheck.bytes(tree, pages) == [])
        #expect(try tree.count(in: pages) == sorted.count)

        var wrong: [String] = []
        for (rank, key) in sorted.enumerated() {
            let found = try key.withUnsafeBytes { try tree.withValue(forKey: $0, in: pages) { Array($0) } }
            if found != model[key] { wrong.append("\(key): \(String(describing: found))") }
            if try key.withUnsafeBytes({ try tree.rank(of: $0, in: pages) }) != rank { wrong.append("rank of \(key)") }
            for probe in Self.neighbours(key) {
                let found = try probe.withUnsafeBytes { try tree.withValue(forKey: $0, in: pages) { Array($0) } }
                if found != model[probe] { wrong.append("neighbour \(probe): \(String(describing: found))") }
                let bound = try probe.withUnsafeBytes { try tree.withLowerBound($0, in: pages) { key, _ in Array(key) } }
                let expected = Self.lowerBound(sorted, probe).map { sorted[$0] }
                if bound != expected { wrong.append("lower bound of \(probe)") }
            }
            if wrong.count > 5 { break }
        }
        #expect(wrong.isEmpty, "\(shape): \(wrong.prefix(5))")
    }

    /// The position of the first key not less than `probe`, nil past the end.
    static func lowerBound(_ sorted: [[UInt8]], _ probe: [UInt8]) -> Int? {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if less(sorted[mid], probe) { low = mid + 1 } else { high = mid }
        }
        return low < sorted.count ? low : nil
    }
}
