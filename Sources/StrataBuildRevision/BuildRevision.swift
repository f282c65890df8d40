// The revision of this package a binary was built from, recorded at build time by the
// BuildRevision plugin (Plugins/BuildRevision): `git describe --always --dirty --abbrev=12`,
// or "unknown" when the package was built outside its own git checkout.

/// The build's own revision.
public enum BuildRevision {
    /// e.g. `5c31473a1b2c` or `5c31473a1b2c-dirty`; "unknown" without a checkout.
    public static let current: String = generatedBuildRevision
}
