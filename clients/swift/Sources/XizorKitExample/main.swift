// xizor-kit-example: fetches a placement's paywall through XizorKit and prints what an app
// would present. The smallest integration, and runnable on Linux:
//
//   swift run xizor-kit-example --base-url http://127.0.0.1:8080 --key pk_… --placement onboarding
import Foundation
import XizorKit

struct Options {
    var baseURL = URL(string: "http://127.0.0.1:8080")!
    var key = ProcessInfo.processInfo.environment["XIZOR_PUBLIC_KEY"] ?? ""
    var placement = "onboarding"
    var locale: String?
    var subscriberId: String?
    var schemaVersion = 2
    var format = PaywallFormat.document
    var cache: URL?
    var fallback: URL?
    var track = false
}

func usage() -> Never {
    FileHandle.standardError.write(
        Data(
            """
            usage: xizor-kit-example --key pk_… [--base-url URL] [--placement KEY] [--locale L] [--subscriber ID]
                                     [--schema N] [--page] [--cache DIR] [--fallback FILE] [--track]
            Prints the answer as JSON; --track also sends a paywall_open event for it.

            """.utf8))
    exit(2)
}

func parse(_ arguments: [String]) -> Options {
    var options = Options()
    var rest = arguments[...]
    while let flag = rest.popFirst() {
        func value() -> String {
            guard let next = rest.popFirst() else { usage() }
            return next
        }
        switch flag {
        case "--base-url":
            guard let url = URL(string: value()) else { usage() }
            options.baseURL = url
        case "--key": options.key = value()
        case "--placement": options.placement = value()
        case "--locale": options.locale = value()
        case "--subscriber": options.subscriberId = value()
        case "--schema":
            guard let n = Int(value()), n >= 1 else { usage() }
            options.schemaVersion = n
        case "--page": options.format = .page
        case "--cache": options.cache = URL(fileURLWithPath: value(), isDirectory: true)
        case "--fallback": options.fallback = URL(fileURLWithPath: value())
        case "--track": options.track = true
        default: usage()
        }
    }
    if options.key.isEmpty { usage() }
    return options
}

let options = parse(Array(CommandLine.arguments.dropFirst()))
let configuration = XizorConfiguration(
    publicKey: options.key, baseURL: options.baseURL, cacheDirectory: options.cache,
    schemaVersion: options.schemaVersion, fallbackBundle: options.fallback)
do {
    let xizor = try Xizor(configuration: configuration)
    let answer = try await xizor.paywall(
        for: options.placement, locale: options.locale, subscriberId: options.subscriberId,
        format: options.format)
    var summary: [String: JSONValue] = ["placement": .string(options.placement)]
    switch answer {
    case .holdout(let experimentId):
        summary["holdout"] = .string(experimentId)
    case .paywall(let paywall):
        summary["paywallId"] = .string(paywall.paywallId)
        summary["version"] = .number(Double(paywall.version))
        summary["schemaVersion"] = .number(Double(paywall.schemaVersion))
        summary["locale"] = .string(paywall.locale)
        summary["source"] = .string("\(paywall.source)")
        if let experiment = paywall.experiment {
            summary["experiment"] = [
                "id": .string(experiment.id), "variant": experiment.variant.map(JSONValue.string) ?? .null,
            ]
        }
        switch paywall.content {
        case .document(let document): summary["document"] = document
        case .page(let html): summary["pageBytes"] = .number(Double(html.utf8.count))
        }
        if options.track {
            await xizor.track(XizorEvent.paywallOpen, paywall: paywall, subscriberId: options.subscriberId)
            await xizor.flush()
            summary["queuedEvents"] = .number(Double(await xizor.events.count))
        }
    }
    var data = try JSONValue.object(summary).jsonData()
    data.append(UInt8(ascii: "\n"))
    FileHandle.standardOutput.write(data)
} catch {
    FileHandle.standardError.write(Data("xizor-kit-example: \(error.localizedDescription)\n".utf8))
    exit(1)
}
