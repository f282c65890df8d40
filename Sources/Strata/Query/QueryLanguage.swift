// The query language lives in its own target, StrataQuery: the tokenizer, parser, expression
// tree, type checker, values, evaluator and sorting, which know nothing of objects, files or
// realms. What is here, in Strata's Query/ folder, joins it to the object layer: the parse cache
// keyed by class, the predicate compiled against a row layout, the index plan, the typed
// `where { }` builder.
//
// Strata re-exports StrataQuery, so `import Strata` is all an app writes: `QueryValue`,
// `QueryError`, the geospatial shapes and `QueryValueConvertible` are Strata's public API as
// before. StrataQuery gives Strata its internals at `package` access, never `public`.
@_exported import StrataQuery
