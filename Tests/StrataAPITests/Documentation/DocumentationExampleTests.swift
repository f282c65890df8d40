// Every ```swift example of README.md's "Using Strata" section, of the guides in docs/ and of the
// DocC articles (Sources/Strata/Strata.docc/*.md) is compiled and run by a test of this target: this suite
// fails, naming the file and the block, when a block's code (whitespace-normalised) does not
// appear in this target's sources, so an example can neither drift from what the tests run nor
// stop compiling unnoticed.
import Foundation
import Testing

@Suite struct DocumentationExampleTests {
    /// One fenced ```swift block of a markdown file.
    struct Block: CustomStringConvertible {
        let file: String
        let line: Int
        let code: String
        var description: String {
            "\(file):\(line) (\(code.split(separator: "\n").first.map(String.init) ?? ""))"
        }
    }

    /// The package's root: this file is Tests/StrataAPITests/Documentation/<name>.swift.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs of whitespace (spaces, tabs, line breaks) as one space, none at the ends.
    static func normalised(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// The ```swift blocks of `text`, with the line each opens on.
    static func swiftBlocks(in text: String, file: String, firstLine: Int = 1) -> [Block] {
        var blocks: [Block] = []
        var open: (line: Int, lines: [Substring])? = nil
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var current = open {
                if trimmed == "```" {
                    blocks.append(Block(file: file, line: current.line, code: current.lines.joined(separator: "\n")))
                    open = nil
                } else {
                    current.lines.append(line)
                    open = current
                }
            } else if trimmed == "```swift" {
                open = (firstLine + i, [])
            }
        }
        return blocks
    }

    /// README.md's "Using Strata" section (up to the next second-level heading) and its first line.
    static func usingStrataSection() throws -> (text: String, firstLine: Int) {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0 == "## Using Strata" }, "README.md has no \"## Using Strata\" section")
        let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("## ") } ?? lines.endIndex
        return (lines[start..<end].joined(separator: "\n"), start + 1)
    }

    /// Every block the documentation holds.
    static func documentedBlocks() throws -> [Block] {
        let section = try usingStrataSection()
        var blocks = swiftBlocks(in: section.text, file: "README.md", firstLine: section.firstLine)
        for folder in ["docs", "Sources/Strata/Strata.docc"] {
            let directory = root.appendingPathComponent(folder)
            let articles = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(".md") }.sorted()
            for name in articles {
                let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                blocks += swiftBlocks(in: text, file: "\(folder)/\(name)")
            }
        }
        return blocks
    }

    /// This target's sources, each normalised.
    static func testSources() throws -> [String] {
        let target = root.appendingPathComponent("Tests/StrataAPITests")
        let files = try #require(FileManager.default.enumerator(atPath: target.path))
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        return try files.map { normalised(try String(contentsOf: target.appendingPathComponent($0), encoding: .utf8)) }
    }

    @Test func everyDocumentedExampleIsInTheTests() throws {
        let blocks = try Self.documentedBlocks()
        // The README's example and at least one per article that has code: not a vacuous pass.
        #expect(blocks.filter { $0.file == "README.md" }.count >= 2)
        #expect(blocks.count >= 15, "\(blocks.count) blocks found")
        let sources = try Self.testSources()
        for block in blocks {
            let code = Self.normalised(block.code)
            #expect(!code.isEmpty, "\(block) is empty")
            #expect(sources.contains { $0.contains(code) },
                    "\(block): this example is not in Tests/StrataAPITests verbatim (whitespace aside); put it in a test there, or correct it")
        }
    }

    @Test func theExtractionFindsBlocksAndTheirLines() {
        let text = "intro\n```swift\nlet a = 1\n  let b = 2\n```\n```\nnot swift\n```\n   ```swift\nx()\n   ```\n"
        let blocks = Self.swiftBlocks(in: text, file: "f.md", firstLine: 10)
        #expect(blocks.map(\.code) == ["let a = 1\n  let b = 2", "x()"])
        #expect(blocks.map(\.line) == [11, 18])
        #expect(Self.normalised(" a\n\t b  c ") == "a b c")
    }
}
