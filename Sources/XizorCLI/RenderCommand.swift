import Foundation
import PaywallFormat
import PaywallRenderer

extension Commands {
    static let render = Subcommand(
        spec: CommandSpec(
            name: "render", summary: "Print the HTML page for a paywall document (FILE or - for stdin).",
            positionals: "FILE", minPositionals: 0, maxPositionals: 1,
            options: [
                .init("locale", value: "L", help: "locale of the texts (default: the document's defaultLocale)"),
                .init("color-scheme", value: "light|dark", help: "appearance (default: light)"),
                .init("preview", help: "keep {{…}} placeholders that have no value (the dashboard preview)"),
                .init(
                    "sample-products", help: "fill products with labelled sample values, as the dashboard preview does"),
                .init("context", value: "K=V,…", help: "presentation context values for {{context.K}}"),
                .init("lottie-player", value: "URL", help: "https URL of the Lottie player script (lottie-web API)"),
                .init("unknown-nodes", help: "also print the skipped unknown node types on stderr"),
                .init("runtime-js", help: "print the page's embedded JavaScript runtime instead"),
            ])
    ) { arguments in
        if arguments.flag("runtime-js") {
            FileHandle.standardOutput.write(Data(PaywallRenderer.runtimeJavaScript.utf8))
            return .success
        }
        guard let file = arguments.positionals.first else { throw UsageError("missing FILE") }
        var options = RenderOptions(
            locale: arguments.value("locale"), mode: arguments.flag("preview") ? .preview : .production,
            lottiePlayerURL: arguments.value("lottie-player"))
        if let scheme = arguments.value("color-scheme") {
            guard let parsed = ColorScheme(rawValue: scheme) else {
                throw UsageError("--color-scheme must be light or dark")
            }
            options.colorScheme = parsed
        }
        if let pairs = arguments.value("context") {
            for pair in pairs.split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { throw UsageError("--context takes KEY=VALUE pairs separated by commas") }
                options.context[String(parts[0])] = .string(String(parts[1]))
            }
        }
        let bytes: [UInt8]
        if file == "-" {
            bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
        } else {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CommandFailure("cannot read \(file)")
            }
            bytes = Array(data)
        }
        let document: JSONValue
        do { document = try JSONParser().parse(bytes) } catch let error as JSONParseError {
            throw CommandFailure(
                "\(file): invalid JSON: \(error.message) at line \(error.line), column \(error.column)")
        }
        if arguments.flag("sample-products") {
            let products = PaywallReader.read(document).document.products
            options.initialProducts = SampleProducts.values(
                for: products, locale: options.locale ?? document["defaultLocale"]?.stringValue ?? "en")
        }
        let page: RenderedPage
        do { page = try PaywallRenderer.render(document, options: options) } catch let error as RenderError {
            throw CommandFailure("\(file): \(error)")
        }
        if arguments.flag("unknown-nodes") {
            for node in page.unknownNodes {
                CommandLineInterface.writeStandardError(
                    "paywall_unknown_node \(node.path) type=\(node.type) \(node.usedFallback ? "fallback" : "skipped")\n"
                )
            }
        }
        FileHandle.standardOutput.write(Data(page.html))
        return .success
    }
}
