import Foundation

/// altbench's version: what runs record, the User-Agent and `altbench --version` say. A
/// release is tagged `v` + this (`scripts/release.sh` refuses a tag that differs).
public enum AltBenchVersion {
    public static let current = "0.1.0"

    /// What `--version` prints: the version and the commit the binary was built from, or that
    /// a build from source did not record one.
    public static func description(commit: String?) -> String {
        "\(current) (\(commit.map { "commit \($0)" } ?? "built from source, commit not recorded"))"
    }
}
