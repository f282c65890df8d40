// The storage format this build writes and reads, for callers outside the module (Strata's
// version constants). A file of another storage format is refused at open with `.notAStrataFile`
// naming its format version (SlotChoice.swift); MetaSlot.swift owns the number itself.

/// The page-and-meta-slot format of a Strata file.
public enum StorageFormat {
    /// The format this build writes (the meta slots' format version).
    public static let version = Int(MetaLayout.formatVersion)
}
