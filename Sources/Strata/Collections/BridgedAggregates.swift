// min/max/sum/average(ofProperty:) given as Foundation's boxes (`as NSNumber?`, `as NSDate?`), as
// RealmSwift answers code written against its Objective-C roots. The boxed number keeps the
// property's type (an integer property gives an integer NSNumber, a Decimal128 one an
// NSDecimalNumber); the property rules are those of the typed forms (Results.swift). An unmanaged
// list or set is aggregated in memory (UnmanagedObjectQueries.swift).
import Foundation

extension RealmCollection where Element: Object {
    /// The smallest value of a numeric property as an `NSNumber`, or `nil` when no object has one.
    ///
    /// - Parameter property: the name of a numeric persisted property.
    public func min<T: NSNumber>(ofProperty property: String) -> T? { boxedExtreme(property, smallest: true) as? T }

    /// The largest value of a numeric property as an `NSNumber`, or `nil` when no object has one.
    ///
    /// - Parameter property: the name of a numeric persisted property.
    public func max<T: NSNumber>(ofProperty property: String) -> T? { boxedExtreme(property, smallest: false) as? T }

    /// The earliest value of a date property as an `NSDate`, or `nil` when no object has one.
    ///
    /// - Parameter property: the name of a date persisted property.
    public func min<T: NSDate>(ofProperty property: String) -> T? { boxedExtreme(property, smallest: true) as? T }

    /// The latest value of a date property as an `NSDate`, or `nil` when no object has one.
    ///
    /// - Parameter property: the name of a date persisted property.
    public func max<T: NSDate>(ofProperty property: String) -> T? { boxedExtreme(property, smallest: false) as? T }

    /// The sum of a numeric property as an `NSNumber`; zero when there is no object.
    ///
    /// - Parameter property: the name of a numeric persisted property.
    public func sum<T: NSNumber>(ofProperty property: String) -> T {
        let total: NSNumber?
        if let unmanaged = unmanagedObjects {
            total = unmanaged.boxedTotal(property, mean: false)
        } else {
            let results = queryableResults
            total = results.core.aggregates.boxedTotal(info: results.info, property: property, source: results.rowSource, mean: false)
        }
        guard let boxed = total as? T else { Stop.now("Strata: invalidArgument: a sum cannot be given as \(T.self)") }
        return boxed
    }

    /// The mean of a numeric property as an `NSNumber`, or `nil` when no object has a value.
    ///
    /// - Parameter property: the name of a numeric persisted property.
    public func average<T: NSNumber>(ofProperty property: String) -> T? {
        if let unmanaged = unmanagedObjects { return unmanaged.boxedTotal(property, mean: true) as? T }
        let results = queryableResults
        return results.core.aggregates.boxedTotal(info: results.info, property: property, source: results.rowSource, mean: true) as? T
    }

    private func boxedExtreme(_ property: String, smallest: Bool) -> AnyObject? {
        if let unmanaged = unmanagedObjects { return unmanaged.boxedExtreme(property, smallest: smallest) }
        let results = queryableResults
        return results.core.aggregates.boxedExtreme(info: results.info, property: property, source: results.rowSource, smallest: smallest)
    }
}
