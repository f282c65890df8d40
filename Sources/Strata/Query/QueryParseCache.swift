// QueryParseCache: parsed and type-checked queries, reused across `filter` calls that differ only
// in their argument values, so `filter("id == %@", k)` in a loop parses (and builds the schema
// the type checker needs) once.
//
// Invariants:
// - An entry is keyed by (class, query string, kind of each argument). Only scalar argument kinds
//   are cacheable (null, bool, int, float, double, string, date); a query with an object, list,
//   set, map, Data, Decimal, ObjectId or UUID argument, or with `%K` (whose argument changes the
//   parse), is never cached: it parses every time.
// - A template is trusted only after a proof: the query is parsed twice, with the real arguments
//   and with probe arguments of the same kinds but different values; the trees must differ
//   exactly at constants equal to the real/probe argument of one index, and rebinding the first
//   tree with the probes must give the second tree. So binding new arguments to a template yields
//   the tree the parser would have produced (the type checker depends only on scalar kinds).
//   When the proof fails the query is simply not cached.
// - Errors are never cached: a failing parse throws on every call, with its own message.
// - Bounded: at most `capacity` entries of at most `maxCachedArguments` arguments each, least
//   recently used evicted. Shared by all realms and threads behind a Mutex; entries hold only
//   scalar constants (no objects), hence Sendable.
import Foundation
import Synchronization

/// Kind of one argument, for the cache key.
enum QueryArgumentKind: UInt8, Hashable, Sendable {
    case null, bool, int, float, double, string, date

    init?(_ value: QueryValue) {
        switch value {
        case .null: self = .null
        case .bool: self = .bool
        case .int: self = .int
        case .float: self = .float
        case .double: self = .double
        case .string: self = .string
        case .date: self = .date
        default: return nil
        }
    }
}

struct QueryCacheKey: Hashable, Sendable {
    /// The Swift class (a metatype lives for the whole process, so the identifier is never reused).
    let type: ObjectIdentifier
    let query: String
    /// The kind of each argument, 3 bits each from the lowest (`QueryParseCache.kindCode`).
    let kinds: UInt64
    let argumentCount: Int
}

enum QueryParseCache {
    static let capacity = 128

    /// Benchmarks/tests: when true, every call parses (nothing is read from or added to the cache).
    @TaskLocal static var bypass = false

    /// A cached template; `used` is updated in place, so a hit hashes its key once.
    private final class Entry {
        let template: QueryTemplate
        var used: UInt64
        init(_ template: QueryTemplate, used: UInt64) {
            self.template = template
            self.used = used
        }
    }

    private struct State {
        var entries: [QueryCacheKey: Entry] = [:]
        var tick: UInt64 = 0
        var hits = 0
        var misses = 0
    }

    private static let state = Mutex(State())

    /// Tests: the number of cached templates.
    static var entryCount: Int { state.withLock { $0.entries.count } }

    /// Tests: (hits, misses) since the process started.
    static var statistics: (hits: Int, misses: Int) { state.withLock { ($0.hits, $0.misses) } }

    /// The predicate for `query` with `arguments` over `info`'s class: from the cache when a
    /// template exists, else parsed (through `parse`, which builds the schema lazily) and cached
    /// when provably reusable.
    static func predicate(_ query: String, arguments: [QueryValue], info: ClassInfo,
                          parse: ([QueryValue]) throws -> QueryPredicate) throws -> QueryPredicate {
        if bypass { return try parse(arguments) }
        guard let kinds = kindCode(query, arguments) else { return try parse(arguments) }
        let key = QueryCacheKey(type: ObjectIdentifier(info.type), query: query, kinds: kinds, argumentCount: arguments.count)
        let cached: QueryTemplate? = state.withLock { s in
            s.tick &+= 1
            guard let entry = s.entries[key] else { s.misses += 1; return nil }
            entry.used = s.tick
            s.hits += 1
            return entry.template
        }
        if let cached { return cached.binding(arguments) }
        let parsed = try parse(arguments)
        if let template = try? makeTemplate(parsed, arguments: arguments, parse: parse) {
            state.withLock { s in
                s.tick &+= 1
                s.entries[key] = Entry(template, used: s.tick)
                if s.entries.count > capacity, let oldest = s.entries.min(by: { $0.value.used < $1.value.used })?.key {
                    s.entries[oldest] = nil
                }
            }
        }
        return parsed
    }

    /// The most arguments a cached query has: their kinds fit one word, 3 bits each.
    static let maxCachedArguments = 21

    /// The argument kinds, 3 bits each from the lowest; nil when the query must not be cached.
    static func kindCode(_ query: String, _ arguments: [QueryValue]) -> UInt64? {
        guard arguments.count <= maxCachedArguments, !containsKeyPathArgument(query) else { return nil }
        var code: UInt64 = 0
        for (i, argument) in arguments.enumerated() {
            guard let kind = QueryArgumentKind(argument) else { return nil }
            code |= UInt64(kind.rawValue) << (3 * UInt64(i))
        }
        return code
    }

    /// Whether `query` contains `%K`. A scan of its UTF-8 bytes: Foundation's `contains` goes
    /// through CFString, a tenth of a repeated indexed lookup's time.
    static func containsKeyPathArgument(_ query: String) -> Bool {
        var afterPercent = false
        for byte in query.utf8 {
            if afterPercent && byte == UInt8(ascii: "K") { return true }
            afterPercent = byte == UInt8(ascii: "%")
        }
        return false
    }

    /// A value of the same kind as `value`, different from it, distinct per `index`; nil for null
    /// (the only null is itself: such an argument behaves as a literal).
    private static func probe(for value: QueryValue, index: Int) -> QueryValue? {
        switch value {
        case .null: return nil
        case .bool(let b): return .bool(!b)
        case .int(let i):
            let candidate = Int64(-7_351_000_000_000 - index)
            return .int(candidate == i ? candidate - 1_000_003 : candidate)
        case .float(let f):
            let candidate = Float(-7_351.25) - Float(index)
            return .float(candidate == f ? candidate - 0.5 : candidate)
        case .double(let d):
            let candidate = -7_351_000.125 - Double(index)
            return .double(candidate == d ? candidate - 0.5 : candidate)
        case .string(let s):
            let candidate = "\u{1}probe\(index)\u{1}"
            return .string(candidate == s ? candidate + "x" : candidate)
        case .date(let d):
            let candidate = Date(timeIntervalSinceReferenceDate: -7_351_000.125 - Double(index))
            return .date(candidate == d ? candidate.addingTimeInterval(-0.5) : candidate)
        default: return nil
        }
    }

    /// Proves which constants of `parsed` are arguments (see invariants); nil when unproven.
    private static func makeTemplate(_ parsed: QueryPredicate, arguments: [QueryValue],
                                     parse: ([QueryValue]) throws -> QueryPredicate) throws -> QueryTemplate? {
        let probes = arguments.enumerated().map { probe(for: $0.element, index: $0.offset) ?? $0.element }
        let probed = try parse(probes)
        let real = QueryConstantRewriter.constants(parsed)
        let other = QueryConstantRewriter.constants(probed)
        guard real.count == other.count else { return nil }
        var slots: [Int: Int] = [:]
        for (index, (a, b)) in zip(real, other).enumerated() where !identical(a, b) {
            let candidates = arguments.indices.filter { identical(arguments[$0], a) && identical(probes[$0], b) }
            guard candidates.count == 1, let argument = candidates.first else { return nil }
            slots[index] = argument
        }
        let template = QueryTemplate(predicate: parsed, slots: slots)
        guard template.binding(probes) == probed else { return nil }
        return template
    }

    /// Same kind and same bits (NaN equals NaN of the same pattern; strings by UTF-8 bytes).
    private static func identical(_ a: QueryValue, _ b: QueryValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.int(x), .int(y)): return x == y
        case let (.float(x), .float(y)): return x.bitPattern == y.bitPattern
        case let (.double(x), .double(y)): return x.bitPattern == y.bitPattern
        case let (.string(x), .string(y)): return x.utf8.elementsEqual(y.utf8)
        case let (.date(x), .date(y)): return x.timeIntervalSinceReferenceDate.bitPattern == y.timeIntervalSinceReferenceDate.bitPattern
        default: return a == b
        }
    }
}

/// Visits / rewrites the constants of a predicate in a fixed pre-order (comparison left before
/// right, list elements in order, SUBQUERY body in place).
enum QueryConstantRewriter {
    static func constants(_ predicate: QueryPredicate) -> [QueryValue] {
        var out: [QueryValue] = []
        var ordinal = 0
        _ = map(predicate, &ordinal) { _, value in
            out.append(value)
            return value
        }
        return out
    }

    static func map(_ predicate: QueryPredicate, _ ordinal: inout Int,
                    _ transform: (Int, QueryValue) -> QueryValue) -> QueryPredicate {
        switch predicate {
        case .truePredicate, .falsePredicate: return predicate
        case .comparison(var c):
            c.left = map(c.left, &ordinal, transform)
            c.right = map(c.right, &ordinal, transform)
            return .comparison(c)
        case .and(let items): return .and(items.map { map($0, &ordinal, transform) })
        case .or(let items): return .or(items.map { map($0, &ordinal, transform) })
        case .not(let inner): return .not(map(inner, &ordinal, transform))
        }
    }

    static func map(_ expression: QueryExpression, _ ordinal: inout Int,
                    _ transform: (Int, QueryValue) -> QueryValue) -> QueryExpression {
        switch expression {
        case .constant(let value):
            let index = ordinal
            ordinal += 1
            return .constant(transform(index, value))
        case .keyPath, .aggregate: return expression
        case .subqueryCount(let collection, let variable, let predicate):
            return .subqueryCount(collection: collection, variable: variable, predicate: map(predicate, &ordinal, transform))
        case .list(let elements): return .list(elements.map { map($0, &ordinal, transform) })
        }
    }
}
