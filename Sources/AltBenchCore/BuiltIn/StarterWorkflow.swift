import Foundation

extension StarterFiles {
    /// The GitHub Actions workflow `altbench init --ci` writes: the same text as
    /// `examples/ci/altbench.yml` (a test keeps them so).
    public static let workflow = workflowText

    static let workflowText = #"""
name: altbench
"""# + "\n"
}
