/// A small RFC 4180 CSV reader: comma-separated fields, double quotes around a field that holds
/// commas, quotes ("" inside) or line breaks, CRLF or LF line ends, a UTF-8 byte-order mark.
package enum CSV {
    /// One record and the line it starts on (1-based), for error messages.
    package struct Record: Sendable, Hashable {
        package var fields: [String]
        package var line: Int
    }

    package enum Problem: Error, Sendable, Hashable {
        /// A quoted field still open at the end of the file.
        case unclosedQuote(line: Int)
        /// A quote in the middle of an unquoted field, or text right after a closing quote.
        case strayQuote(line: Int)
    }

    /// The records of `text`, blank lines skipped.
    package static func records(_ text: String) throws(Problem) -> [Record] {
        var records: [Record] = []
        var fields: [String] = []
        var field = ""
        var line = 1
        var recordLine = 1
        var quoted = false
        var afterClosingQuote = false
        var fieldStarted = false
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        var i = 0

        func endField() {
            fields.append(field)
            field = ""
            afterClosingQuote = false
            fieldStarted = false
        }
        func endRecord() {
            endField()
            if !(fields.count == 1 && fields[0].isEmpty) {
                records.append(Record(fields: fields, line: recordLine))
            }
            fields = []
        }

        while i < scalars.count {
            let c = scalars[i]
            if quoted {
                if c == "\"" {
                    if i + 1 < scalars.count, scalars[i + 1] == "\"" {
                        field.unicodeScalars.append("\"")
                        i += 2
                        continue
                    }
                    quoted = false
                    afterClosingQuote = true
                } else {
                    if c == "\n" { line += 1 }
                    field.unicodeScalars.append(c)
                }
                i += 1
                continue
            }
            switch c {
            case ",":
                endField()
                fieldStarted = true
            case "\r" where i + 1 < scalars.count && scalars[i + 1] == "\n":
                i += 1
                endRecord()
                line += 1
                recordLine = line
            case "\n":
                endRecord()
                line += 1
                recordLine = line
            case "\"":
                guard field.isEmpty, !afterClosingQuote else { throw .strayQuote(line: line) }
                quoted = true
                fieldStarted = true
            default:
                guard !afterClosingQuote else { throw .strayQuote(line: line) }
                field.unicodeScalars.append(c)
                fieldStarted = true
            }
            i += 1
        }
        if quoted { throw .unclosedQuote(line: recordLine) }
        if fieldStarted || !field.isEmpty || !fields.isEmpty { endRecord() }
        return records
    }
}
