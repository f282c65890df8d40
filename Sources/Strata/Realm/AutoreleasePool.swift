// `autoreleasepool(invoking:)`, which Realm's documentation wraps around every write made on a
// background queue. Foundation on Linux has no autorelease pools (there is no Objective-C
// runtime to autorelease into): the block runs, and what it made is released when Swift releases
// it, at the end of its scope. Declared here so that Realm code using it compiles unchanged.
#if !canImport(ObjectiveC)
/// Runs `body` and returns its result. On Linux there is no autorelease pool to drain; objects
/// are released as Swift releases them.
public func autoreleasepool<Result>(invoking body: () throws -> Result) rethrows -> Result {
    try body()
}
#endif
