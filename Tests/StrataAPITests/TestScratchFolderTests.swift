// The test process keeps its temporary files in one folder of its own, which it removes at exit.
import Foundation
import StrataTestSupport
import Testing

@Suite("The tests' scratch folder")
struct TestScratchFolderTests {
    @Test func temporaryFilesGoIntoThisProcessesFolder() throws {
        let folder = testScratchFolder
        try #require(!folder.isEmpty, "the folder could be made")
        #expect(folder.contains("/strata-tests-"))
        #expect(FileManager.default.temporaryDirectory.path.hasPrefix(folder))
        #expect(tempConfig("scratch").fileURL?.path.hasPrefix(folder) == true)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) && isDirectory.boolValue)
    }
}
