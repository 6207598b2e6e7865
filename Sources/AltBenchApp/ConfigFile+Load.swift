import AltBenchCore
import Foundation

extension ConfigFile {
    /// `--config FILE` (which must exist), else `altbench.yml` in the working directory if
    /// present, else an empty configuration.
    static func load(configPath: String?, workingDirectory: URL) throws -> ConfigFile {
        if let configPath {
            let url = URL.resolving(configPath, against: workingDirectory)
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw AltBenchError.configFile(file: configPath, line: nil, message: "no such file. Check the --config path.")
            }
            return try ConfigFile.load(from: url, displayPath: configPath)
        }
        return try ConfigFile.load(
            from: URL.resolving("altbench.yml", against: workingDirectory), displayPath: "altbench.yml")
    }
}

extension URL {
    /// A path as a user gave it: absolute as is, relative against the working directory.
    static func resolving(_ path: String, against directory: URL) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
    }
}
