// The string and data operators of `Query<T>`: substring, prefix, suffix, pattern and
// option-qualified equality, against a value or against another property of the object.
//
// They apply where the stored form is a string or data (RealmSwift's `_QueryBinary`: `String`,
// `Data`, their optionals, and enums or custom-persisted types stored as them); `like` only
// where it is a string (`_QueryString`).
import Foundation

/// Options of the string operators (RealmSwift's name for ``QueryStringOptions``).
public typealias StringOptions = QueryStringOptions

extension Query where T: _HasPersistedType, T.PersistedType: _QueryBinary {
    /// `path CONTAINS[options] value`.
    public func contains(_ value: T, options: StringOptions = []) -> Query<Bool> {
        Self.comparison(self, .contains, value: value, options: options)
    }

    /// `path CONTAINS[options] column`: this property contains the other one's value.
    public func contains<U>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool>
    where U: _Persistable, U.PersistedType: _QueryBinary {
        Self.comparison(self, .contains, column: column, options: options)
    }

    /// `path BEGINSWITH[options] value`.
    public func starts(with value: T, options: StringOptions = []) -> Query<Bool> {
        Self.comparison(self, .beginsWith, value: value, options: options)
    }

    /// `path BEGINSWITH[options] column`.
    public func starts<U>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        Self.comparison(self, .beginsWith, column: column, options: options)
    }

    /// `path ENDSWITH[options] value`.
    public func ends(with value: T, options: StringOptions = []) -> Query<Bool> {
        Self.comparison(self, .endsWith, value: value, options: options)
    }

    /// `path ENDSWITH[options] column`.
    public func ends<U>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        Self.comparison(self, .endsWith, column: column, options: options)
    }

    /// `path ==[options] value` (case- or diacritic-insensitive equality).
    public func equals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        Self.comparison(self, .equal, value: value, options: options)
    }

    /// `path ==[options] column`.
    public func equals<U>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        Self.comparison(self, .equal, column: column, options: options)
    }

    /// `path !=[options] value`.
    public func notEquals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        Self.comparison(self, .notEqual, value: value, options: options)
    }

    /// `path !=[options] column`.
    public func notEquals<U>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        Self.comparison(self, .notEqual, column: column, options: options)
    }
}

extension Query where T: _HasPersistedType, T.PersistedType: _QueryString {
    /// `path LIKE[c] pattern` (`?` one character, `*` any run).
    public func like(_ pattern: T, caseInsensitive: Bool = false) -> Query<Bool> {
        Self.comparison(self, .like, value: pattern, options: caseInsensitive ? .caseInsensitive : [])
    }

    /// `path LIKE[c] column`: the other property's value is the pattern.
    public func like<U>(_ column: Query<U>, caseInsensitive: Bool = false) -> Query<Bool> {
        Self.comparison(self, .like, column: column, options: caseInsensitive ? .caseInsensitive : [])
    }
}
