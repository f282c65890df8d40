// min/max/sum/average(ofProperty:) of Results of objects: column scans of the stored rows
// (Aggregates.swift), integer sums exact (ExactSum.swift).

extension Results where Element: Object {
    /// The smallest value of a property over the matching objects, or `nil` when none has a value.
    ///
    /// Reads the property straight from the stored rows; null values are skipped. The requested type
    /// must be the property's stored type (any integer type for an integer property): an unknown
    /// property, a link or collection property, or another type stops the program with a `Strata:`
    /// message.
    ///
    /// - Parameter property: the name of a scalar persisted property.
    public func min<T: _PersistableElement & Comparable>(ofProperty property: String) -> T? {
        if let extreme = doubleExtreme(T.self, property: property, smallest: true) { return extreme }
        var best: T?
        core.aggregates.forEachValue(T.self, info: info, property: property, source: rowSource) { v in
            if let b = best, b <= v {} else { best = v }
        }
        return best
    }

    /// The largest value of a property over the matching objects, or `nil` when none has a value.
    ///
    /// Null values are skipped; the property rules are those of ``min(ofProperty:)``.
    ///
    /// - Parameter property: the name of a scalar persisted property.
    public func max<T: _PersistableElement & Comparable>(ofProperty property: String) -> T? {
        if let extreme = doubleExtreme(T.self, property: property, smallest: false) { return extreme }
        var best: T?
        core.aggregates.forEachValue(T.self, info: info, property: property, source: rowSource) { v in
            if let b = best, b >= v {} else { best = v }
        }
        return best
    }

    /// The sum of a property over the matching objects; zero when none matches.
    ///
    /// Null values are skipped; the property rules are those of ``min(ofProperty:)``. Integers
    /// are added exactly, whatever their order; a sum that does not fit in `T` stops the program
    /// with a `Strata: valueTooLarge` message (``RealmCollection/checkedSum(ofProperty:)`` throws
    /// it instead).
    ///
    /// - Parameter property: the name of a numeric persisted property.
    public func sum<T: _PersistableElement & AdditiveArithmetic>(ofProperty property: String) -> T {
        do {
            if let total = try concreteSum(T.self, property: property) { return total }
        } catch {
            Stop.now(error)
        }
        return ExactSum.totalOrStop(T.self, of: sumName(property)) { body in
            core.aggregates.forEachValue(T.self, info: info, property: property, source: rowSource, body)
        }
    }

    /// `sum(ofProperty:)`, throwing when the sum does not fit in `T`.
    func checkedSum<T: _PersistableElement & AdditiveArithmetic>(ofProperty property: String) throws(Realm.Error) -> T {
        if let total = try concreteSum(T.self, property: property) { return total }
        return try ExactSum.total(T.self, of: sumName(property)) { body in
            core.aggregates.forEachValue(T.self, info: info, property: property, source: rowSource, body)
        }
    }

    private func sumName(_ property: String) -> String { "the sum of '\(info.schema.className).\(property)'" }

    /// The mean of a numeric property over the matching objects, or `nil` when none has a value.
    ///
    /// Integer, `Float` and `Double` properties are averaged in `Double`, `Decimal128` ones in
    /// decimal arithmetic, and the mean is given as `T` (`let mean: Double? = …`,
    /// `… as Decimal128?`); null values are skipped. Any other property stops the program with a
    /// `Strata:` message.
    ///
    /// - Parameter property: the name of a numeric persisted property.
    public func average<T: AddableType>(ofProperty property: String) -> T? {
        core.aggregates.average(info: info, property: property, source: rowSource)
    }
}
