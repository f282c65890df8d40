// QueryError: every way a query can be rejected — malformed text, an unknown property, a type
// mismatch, a missing argument, an unsupported form. Parsing and validation throw only this.
//
// Invariant: the message names the offending token or property; `offset` is the position of
// that token in the query string, counted in Unicode scalars from 0 (the character offset for
// queries without combining sequences), or nil when the query did not
// come from a string (a type-safe `Query<T>`, a tree validated on its own).

/// Why a query was rejected, with the position of the problem in the query text.
///
/// You meet it as the `queryError` of a `Realm.Error` with code `.invalidQuery`, thrown by
/// ``Results/filtering(_:_:)``.
///
/// ```swift
/// do {
///     _ = try dogs.filtering("age >> 2", [])
/// } catch let error as Realm.Error {
///     if let q = error.queryError { print(q.kind, q.offset ?? -1, q.message) }
/// }
/// ```
public struct QueryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, for programs to switch on.
    public enum Kind: String, Equatable, Sendable {
        /// The text is not a query (unexpected token, unterminated string, trailing input).
        case syntax
        /// A key path names a property the type does not have.
        case unknownProperty
        /// Operands or operator do not fit together (e.g. `name > 3`, `age BEGINSWITH 'a'`).
        case typeMismatch
        /// A `%@`, `%K` or `$n` refers to an argument that was not given, or has the wrong form.
        case argumentCount
        /// A valid form Strata does not implement.
        case unsupported
    }

    /// The category of the error.
    public var kind: Kind
    /// A sentence naming the offending token or property.
    public var message: String
    /// Offset (in Unicode scalars) of the offending token in the query string, if the query was a string.
    public var offset: Int?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - kind: the category of the problem.
    ///   - message: a sentence naming the offending token or property.
    ///   - offset: where in the query text the problem is, in Unicode scalars from 0; `nil` when the
    ///     query was not text.
    public init(_ kind: Kind, _ message: String, offset: Int? = nil) {
        self.kind = kind
        self.message = message
        self.offset = offset
    }

    public var description: String {
        if let offset { return "\(kind) error at offset \(offset): \(message)" }
        return "\(kind) error: \(message)"
    }

    /// The same error located at `offset`, unless it already has a position.
    func located(at offset: Int) -> QueryError {
        var copy = self
        if copy.offset == nil { copy.offset = offset }
        return copy
    }
}
