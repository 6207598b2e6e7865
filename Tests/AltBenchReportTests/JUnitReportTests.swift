import AltBenchCore
import Foundation
import Testing

@testable import AltBenchReport

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("JUnitReport")
struct JUnitReportTests {
    typealias F = CompareFixtures

    /// Text no renderer should let break the document: markup, quotes, a CDATA end, line
    /// breaks, a control character XML 1.0 forbids and a noncharacter.
    static let hostile = "a<b & \"c\" 'd' ]]> e\u{1}f\r\ng\th \u{FFFE} </failure>"

    /// The regression verdict with a hostile variant name, messages and errors.
    static var hostileVerdict: CheckVerdict {
        var verdict = F.regression
        verdict.results = verdict.results.map { result in
            var result = result
            result.variant = "v" + hostile
            result.message += " " + hostile
            return result
        }
        verdict.problems = [
            CheckVerdict.Problem(check: "same model as the baseline", message: "the model differs: " + hostile),
            CheckVerdict.Problem(check: "name " + hostile, message: hostile),
        ]
        return verdict
    }

    /// A pass in which the baseline did not measure one check of one pair: that check is skipped.
    static var skipped: CheckVerdict {
        var baseline = F.baseline
        baseline.rows[1].metrics[ScoreName.refusal] = nil
        return CheckVerdict(comparison: Comparison(before: baseline, after: F.baseline))
    }

    static let fixtures: [(String, CheckVerdict)] = [
        ("regression", F.regression), ("pass", F.pass), ("mismatch", F.mismatch), ("hostile", hostileVerdict),
        ("skipped", skipped),
    ]

    /// `text` as the parser should read it back: forbidden characters replaced, and a
    /// carriage return kept (it is written as a character reference).
    static func expectedRoundTrip(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            out.append(JUnitReport.isAllowed(scalar) || ["\t", "\n", "\r"].contains(scalar) ? scalar : "\u{FFFD}")
        }
        return String(out)
    }

    // MARK: - A real parser

    /// An element as the parser read it.
    final class Element {
        let name: String
        let attributes: [String: String]
        var children: [Element] = []
        var text = ""

        init(name: String, attributes: [String: String]) {
            self.name = name
            self.attributes = attributes
        }

        func children(_ name: String) -> [Element] { children.filter { $0.name == name } }
        func int(_ attribute: String) -> Int? { attributes[attribute].flatMap { Int($0) } }
    }

    /// Builds the element tree with Foundation's `XMLParser` (libxml2 on Linux) and records
    /// anything wrong. `parse()` alone is not enough on Linux: it returns true for mismatched
    /// end tags and reports nothing for an unclosed root, so the delegate checks the nesting too.
    final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: Element?
        var stack: [Element] = []
        var problems: [String] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String]
        ) {
            let element = Element(name: elementName, attributes: attributes)
            if let parent = stack.last {
                parent.children.append(element)
            } else if root == nil {
                root = element
            } else {
                problems.append("a second root element <\(elementName)>")
            }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard let open = stack.popLast(), open.name == elementName else {
                problems.append("</\(elementName)> closes nothing open")
                return
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            problems.append("parse error: \(parseError)")
        }
    }

    static func parse(_ xml: String) -> (root: Element?, problems: [String]) {
        let parser = XMLParser(data: Data(xml.utf8))
        let builder = TreeBuilder()
        parser.delegate = builder
        var problems: [String] = []
        if !parser.parse() { problems.append("parse() returned false") }
        if let error = parser.parserError { problems.append("parserError: \(error)") }
        problems += builder.problems
        if !builder.stack.isEmpty { problems.append("unclosed: \(builder.stack.map(\.name))") }
        if builder.root == nil { problems.append("no root element") }
        return (builder.root, problems)
    }

    @Test("the parser used below rejects malformed documents")
    func parserIsStrict() {
        for bad in ["<a><b></a>", "<a>", "<a>&foo;</a>", "<a x=1/>", "<a>]]></a>", "<a x=\"<\"/>", "<a/><b/>", "<a>\u{1}</a>"] {
            #expect(!Self.parse(bad).problems.isEmpty, "accepted \(bad.debugDescription)")
        }
        #expect(Self.parse("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a x=\"&#10;\">&#x1F600;ü</a>\n").problems.isEmpty)
    }

    // MARK: - Well-formedness

    @Test("every verdict renders as well-formed XML", arguments: fixtures.map(\.0))
    func wellFormed(name: String) throws {
        let verdict = try #require(Self.fixtures.first { $0.0 == name }?.1)
        let xml = JUnitReport.xml(verdict)
        let parsed = Self.parse(xml)
        #expect(parsed.problems.isEmpty, "\(parsed.problems)")
        #expect(parsed.root?.name == "testsuites")
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"altbench check\" "))
        #expect(xml.hasSuffix("</testsuites>\n"))
        #expect(JUnitReport.xml(verdict) == xml)
    }

    @Test("hostile names and messages are escaped and read back intact")
    func hostileRoundTrip() throws {
        let verdict = Self.hostileVerdict
        let xml = JUnitReport.xml(verdict)
        #expect(!xml.contains("]]>"))
        #expect(!xml.unicodeScalars.contains("\u{1}"))
        #expect(!xml.unicodeScalars.contains("\u{FFFE}"))
        #expect(!xml.contains("</failure> </failure>"))

        let root = try #require(Self.parse(xml).root)
        let suites = root.children("testsuite")
        #expect(suites.first?.attributes["name"] == Self.expectedRoundTrip(verdict.results[0].label))
        let cases = suites.dropLast().flatMap { $0.children("testcase") }
        try #require(cases.count == verdict.results.count)
        for (testcase, result) in zip(cases, verdict.results) {
            let tokens = result.maxTokens.map(String.init) ?? "none"
            #expect(testcase.attributes["classname"] == Self.expectedRoundTrip("altbench.\(result.variant).\(tokens)"))
            guard !result.passed else { continue }
            let failure = try #require(testcase.children("failure").first)
            #expect(failure.attributes["message"] == Self.expectedRoundTrip("\(result.check) \(result.message)"))
            #expect(failure.text.contains(Self.expectedRoundTrip(result.message)))
        }
        let errors = try #require(suites.last).children("testcase").compactMap { $0.children("error").first }
        #expect(errors.map { $0.attributes["message"] } == verdict.errors.map(Self.expectedRoundTrip))
        #expect(
            try #require(suites.last).children("testcase").map { $0.attributes["name"] } == [
                "same model as the baseline", Self.expectedRoundTrip("name " + Self.hostile),
            ])
    }

    @Test("escaping covers the five markup characters and forbidden characters")
    func escaping() {
        #expect(JUnitReport.attribute("<&>\"'") == "\"&lt;&amp;&gt;&quot;&apos;\"")
        #expect(JUnitReport.attribute("a\nb\tc\rd") == "\"a&#10;b&#9;c&#13;d\"")
        #expect(JUnitReport.text("a]]>b\u{0}c\u{1F}d\u{7}") == "a]]&gt;b\u{FFFD}c\u{FFFD}d\u{FFFD}")
        #expect(JUnitReport.text("“é” 🙂 \u{85}") == "“é” 🙂 \u{85}")
    }

    // MARK: - Counts

    @Test("counts match the verdict and each failed check has exactly one failure", arguments: fixtures.map(\.0))
    func counts(name: String) throws {
        let verdict = try #require(Self.fixtures.first { $0.0 == name }?.1)
        let root = try #require(Self.parse(JUnitReport.xml(verdict)).root)
        #expect(root.int("tests") == verdict.results.count + verdict.errors.count)
        #expect(root.int("failures") == verdict.failures.count)
        #expect(root.int("errors") == verdict.errors.count)

        var suites = root.children("testsuite")
        for suite in suites {
            let cases = suite.children("testcase")
            #expect(suite.int("tests") == cases.count)
            #expect(suite.int("failures") == cases.filter { !$0.children("failure").isEmpty }.count)
            #expect(suite.int("errors") == cases.filter { !$0.children("error").isEmpty }.count)
            #expect(suite.int("skipped") == cases.filter { !$0.children("skipped").isEmpty }.count)
        }
        if !verdict.errors.isEmpty {
            guard let configuration = suites.popLast() else {
                Issue.record("no configuration suite")
                return
            }
            #expect(configuration.attributes["name"] == "altbench check configuration")
            let cases = configuration.children("testcase")
            #expect(cases.count == verdict.errors.count)
            for testcase in cases {
                #expect(testcase.children("error").count == 1)
                #expect(testcase.children("error").first?.attributes["type"] == "configuration")
                #expect(testcase.children("failure").isEmpty)
            }
        }
        #expect(suites.count == Set(verdict.results.map(\.label)).count)
        let cases = suites.flatMap { $0.children("testcase") }
        try #require(cases.count == verdict.results.count)
        for (testcase, result) in zip(cases, verdict.results) {
            #expect(testcase.attributes["name"] == result.check)
            #expect(testcase.children("error").isEmpty)
            if result.passed {
                #expect(testcase.children.isEmpty, "\(result.label) \(result.check) passed but has \(testcase.children.map(\.name))")
            } else if result.skipped {
                #expect(testcase.children.map(\.name) == ["skipped"])
                #expect(testcase.children("skipped").first?.attributes["message"] == result.message)
            } else {
                let failures = testcase.children("failure")
                #expect(failures.count == 1, "\(result.label) \(result.check)")
                #expect(failures.first?.attributes["type"] == "regression")
            }
        }
    }

    @Test("the regression fixture fails terse @ 50 and passes terse @ 100")
    func regressionShape() throws {
        let root = try #require(Self.parse(JUnitReport.xml(F.regression)).root)
        let suites = root.children("testsuite")
        #expect(suites.map { $0.attributes["name"] } == ["terse @ 50", "terse @ 100"])
        #expect(suites.map { $0.int("failures") ?? -1 } == [F.regression.failures.count, 0])
        #expect(suites[0].children("testcase").allSatisfy { $0.attributes["classname"] == "altbench.terse.50" })
        #expect(suites[1].children("testcase").allSatisfy { $0.attributes["classname"] == "altbench.terse.100" })
        let firstPerson = try #require(suites[0].children("testcase").first { $0.attributes["name"] == ScoreName.firstPerson })
        let failure = try #require(firstPerson.children("failure").first)
        #expect(failure.text.contains("baseline 20261120-090000-base → run 20261121-100000-head"))
        #expect(failure.text.contains("- cat: I see a cat | on a table."))
    }

    @Test("the pass fixture has no failures and no errors")
    func passCounts() throws {
        let xml = JUnitReport.xml(F.pass)
        let root = try #require(Self.parse(xml).root)
        #expect(root.attributes["failures"] == "0")
        #expect(root.attributes["errors"] == "0")
        #expect(root.int("tests") == F.pass.results.count)
        #expect(!xml.contains("<failure"))
        #expect(!xml.contains("<error"))
    }

    @Test("a mismatch adds the configuration suite, named after what differs")
    func mismatchSuite() throws {
        let root = try #require(Self.parse(JUnitReport.xml(F.mismatch)).root)
        let configuration = try #require(root.children("testsuite").last)
        #expect(configuration.attributes["name"] == "altbench check configuration")
        #expect(configuration.children("testcase").map { $0.attributes["name"] } == ["same provider as the baseline"])
        #expect(configuration.children("testcase").first?.attributes["classname"] == "altbench.configuration")
    }

    @Test("a pair missing from the run is a configuration error named after the pair")
    func missingPair() throws {
        var run = F.run
        run.rows.removeLast()
        let verdict = CheckVerdict(comparison: Comparison(before: F.baseline, after: run))
        try #require(verdict.errors.count == 1)
        let root = try #require(Self.parse(JUnitReport.xml(verdict)).root)
        #expect(root.int("errors") == 1)
        let configuration = try #require(root.children("testsuite").last)
        #expect(configuration.children("testcase").map { $0.attributes["name"] } == ["terse @ 100 is in the run"])
    }

    // MARK: - Golden

    /// `Golden/<file>` next to this file. `RECORD=1 swift test --filter JUnitReport` rewrites them.
    @Test("the XML matches the golden file byte for byte", arguments: [
        ("regression", "check.junit.xml"), ("mismatch", "check-error.junit.xml"),
    ])
    func golden(fixture: String, file: String) throws {
        let verdict = try #require(Self.fixtures.first { $0.0 == fixture }?.1)
        try GoldenFile.expect(JUnitReport.xml(verdict), matches: file)
    }
}
