import Foundation
import Yams

extension ConfigFile {
    /// `azure:`: `endpoint`, `deployment`, `api_version` and `api_key_env`, each checked here
    /// so that a bad value is reported with its line.
    static func azureConfig(_ value: Node, line: Int?, displayPath: String) throws -> AzureConfig {
        guard let entries = value.mapping else {
            throw AltBenchError.configFile(
                file: displayPath, line: line,
                message: "`azure` must map settings to values, e.g. {endpoint: https://my-resource.openai.azure.com, deployment: gpt-4o-mini}.")
        }
        var azure = AzureConfig()
        for (entryNode, entryValue) in entries {
            let entry = entryNode.string ?? ""
            let entryLine = entryNode.mark?.line ?? line
            func entryFail(_ message: String) -> AltBenchError {
                .configFile(file: displayPath, line: entryLine, message: "`azure.\(entry)` \(message)")
            }
            // The parsers' messages start with the value; here they follow the key's name.
            func checked<T>(_ parse: () throws -> T) throws -> T {
                do {
                    return try parse()
                } catch AltBenchError.invalidSetting(_, let message) {
                    throw entryFail(message)
                }
            }
            guard let text = entryValue.scalar?.string, !text.isEmpty else {
                if AzureConfig.knownKeys.contains(entry) { throw entryFail("must be a text value.") }
                throw unknownAzureKey(entry, fail: entryFail)
            }
            switch entry {
            case "endpoint":
                _ = try checked { try AzureSettings.parseEndpoint(text, source: "azure.endpoint") }
                azure.endpoint = text
            case "deployment":
                azure.deployment = try checked { try AzureSettings.parseDeployment(text, source: "azure.deployment") }
            case "api_version":
                azure.apiVersion = try checked { try AzureSettings.parseAPIVersion(text, source: "azure.api_version") }
            case "api_key_env":
                guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                    throw entryFail("names an environment variable (letters, digits and _), not a key. Put the key itself in that variable.")
                }
                azure.apiKeyEnv = text
            default:
                throw unknownAzureKey(entry, fail: entryFail)
            }
        }
        return azure
    }

    private static func unknownAzureKey(_ entry: String, fail: (String) -> AltBenchError) -> AltBenchError {
        let lowered = entry.lowercased()
        let hint =
            lowered.hasSuffix("key") || lowered.hasSuffix("token") || lowered.hasSuffix("secret")
            ? " Never put a key in this file: export it as \(AzureSettings.defaultAPIKeyVariable), or name the variable that holds it with `api_key_env`."
            : YAMLDiagnostics.closest(to: entry, in: AzureConfig.knownKeys).map { " Did you mean `\($0)`?" } ?? ""
        return fail("is not an Azure setting.\(hint) Settings: \(AzureConfig.knownKeys.joined(separator: ", ")).")
    }
}
