import AltBenchCore
import Foundation

/// What the test server needs from AltBenchCore's `JSONValue` beyond what the runner uses.
extension JSONValue {
    /// The Foundation form (`[String: Any]`, `[Any]`, `String`, `Int`, `Double`, `Bool`, `NSNull`),
    /// for assertions written against `JSONSerialization`-style values.
    package var anyValue: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let value): return value
        case .int(let value): return value
        case .double(let value): return value
        case .string(let value): return value
        case .array(let value): return value.map(\.anyValue)
        case .object(let value): return value.mapValues(\.anyValue)
        }
    }

    /// The JSON type name used in OpenAI-style error messages ("an integer", "a string", ...).
    var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int: return "an integer"
        case .double: return "a decimal"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
