import Foundation

/// A secret that never prints: `description` and `dump` show "[redacted]".
package struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    package let value: String
    package init(_ value: String) { self.value = value }
    package var description: String { Redactor.placeholder }
    package var debugDescription: String { Redactor.placeholder }
    package var customMirror: Mirror { Mirror(self, children: []) }
}
