import Foundation

/// A `multipart/form-data` body (RFC 7578) split into its parts, as the test server's
/// `POST /v1/files` reads an upload: the boundary from the `Content-Type` header, each part's
/// headers, its `Content-Disposition` name and filename, and its bytes exactly.
///
/// ```swift
/// let boundary = try #require(MultipartFormData.boundary(contentType: request.header("content-type") ?? ""))
/// let form = try MultipartFormData.parse(request.body, boundary: boundary)
/// let file = form.part(named: "file")
/// ```
package struct MultipartFormData: Sendable {
    /// One part: its header fields, and the bytes between its blank line and the next
    /// delimiter (the CRLF before the delimiter belongs to the delimiter).
    package struct Part: Sendable {
        package var headers: [(name: String, value: String)]
        package var body: Data

        /// The first value of header `name`, compared case-insensitively.
        package func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// `Content-Disposition`'s `name` parameter.
        package var name: String? { header("content-disposition").flatMap { Self.parameters($0)["name"] } }
        /// `Content-Disposition`'s `filename` parameter.
        package var filename: String? { header("content-disposition").flatMap { Self.parameters($0)["filename"] } }
        package var contentType: String? { header("content-type") }

        /// The parameters of a header value such as `form-data; name="file"; filename="a.jsonl"`
        /// (names lowercased; quoted values unescaped).
        static func parameters(_ value: String) -> [String: String] {
            var result: [String: String] = [:]
            var characters = Substring(value)
            // Skip the leading token ("form-data").
            guard let first = characters.firstIndex(of: ";") else { return result }
            characters = characters[characters.index(after: first)...]
            while !characters.isEmpty {
                characters = characters.drop { $0 == " " || $0 == "\t" || $0 == ";" }
                guard let equals = characters.firstIndex(of: "=") else { break }
                let name = characters[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
                characters = characters[characters.index(after: equals)...]
                var parameterValue = ""
                if characters.first == "\"" {
                    characters = characters.dropFirst()
                    var escaped = false
                    while let character = characters.first {
                        characters = characters.dropFirst()
                        if escaped {
                            parameterValue.append(character)
                            escaped = false
                        } else if character == "\\" {
                            escaped = true
                        } else if character == "\"" {
                            break
                        } else {
                            parameterValue.append(character)
                        }
                    }
                    characters = characters.drop { $0 != ";" }
                } else {
                    let end = characters.firstIndex(of: ";") ?? characters.endIndex
                    parameterValue = characters[..<end].trimmingCharacters(in: .whitespaces)
                    characters = characters[end...]
                }
                result[name] = parameterValue
            }
            return result
        }
    }

    package var parts: [Part]

    /// The first part whose `Content-Disposition` name is `name`.
    package func part(named name: String) -> Part? {
        parts.first { $0.name == name }
    }

    /// The boundary of a `multipart/form-data` content type (quoted or not); `nil` for any
    /// other media type or one without a boundary.
    package static func boundary(contentType: String) -> String? {
        let mediaType = contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "multipart/form-data" else { return nil }
        guard let boundary = Part.parameters(contentType)["boundary"], !boundary.isEmpty, boundary.count <= 70 else {
            return nil
        }
        return boundary
    }

    /// What is wrong with a body that is not `multipart/form-data` with this boundary.
    package struct FormatError: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Splits `body` at `--boundary` delimiters. A preamble before the first delimiter and an
    /// epilogue after the closing one are ignored, as RFC 2046 says.
    package static func parse(_ body: Data, boundary: String) throws -> MultipartFormData {
        let delimiter = Array("--\(boundary)".utf8)
        let bytes = [UInt8](body)
        // The first delimiter is at the very start or after a CRLF.
        var position: Int
        if bytes.starts(with: delimiter) {
            position = 0
        } else if let found = find([13, 10] + delimiter, in: bytes, from: 0) {
            position = found + 2
        } else {
            throw FormatError(description: "no boundary '\(boundary)' in the body")
        }
        var parts: [Part] = []
        while true {
            var cursor = position + delimiter.count
            if cursor + 1 < bytes.count, bytes[cursor] == 45, bytes[cursor + 1] == 45 {  // "--": the end
                return MultipartFormData(parts: parts)
            }
            // Transport padding (spaces, tabs) may follow a delimiter before its CRLF.
            while cursor < bytes.count, bytes[cursor] == 32 || bytes[cursor] == 9 { cursor += 1 }
            guard cursor + 1 < bytes.count, bytes[cursor] == 13, bytes[cursor + 1] == 10 else {
                throw FormatError(description: "a boundary line does not end with CRLF")
            }
            let headerStart = cursor + 2
            let headerEnd: Int
            let contentStart: Int
            if headerStart + 1 < bytes.count, bytes[headerStart] == 13, bytes[headerStart + 1] == 10 {
                headerEnd = headerStart  // a part without headers
                contentStart = headerStart + 2
            } else {
                guard let end = find([13, 10, 13, 10], in: bytes, from: headerStart) else {
                    throw FormatError(description: "part \(parts.count + 1) has no blank line after its headers")
                }
                headerEnd = end
                contentStart = end + 4
            }
            guard let next = find([13, 10] + delimiter, in: bytes, from: contentStart) else {
                throw FormatError(description: "the body ends inside part \(parts.count + 1), before the closing boundary")
            }
            var headers: [(name: String, value: String)] = []
            let headerText = String(decoding: bytes[headerStart..<headerEnd], as: UTF8.self)
            for line in headerText.components(separatedBy: "\r\n") where !line.isEmpty {
                guard let colon = line.firstIndex(of: ":") else {
                    throw FormatError(description: "part \(parts.count + 1) has a header line without a colon: \(line.prefix(80))")
                }
                headers.append(
                    (name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
            parts.append(Part(headers: headers, body: Data(bytes[contentStart..<next])))
            position = next + 2
        }
    }

    /// The first index at or after `start` where `pattern` occurs in `bytes`.
    static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard let first = pattern.first, pattern.count <= bytes.count else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> Int? in
            pattern.withUnsafeBufferPointer { needle -> Int? in
                var index = start
                let last = buffer.count - needle.count
                while index <= last {
                    // memchr finds the candidates; memcmp checks each.
                    guard let hit = memchr(buffer.baseAddress! + index, Int32(first), last - index + 1) else { return nil }
                    let offset = buffer.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(buffer.baseAddress! + offset, needle.baseAddress!, needle.count) == 0 { return offset }
                    index = offset + 1
                }
                return nil
            }
        }
    }
}
