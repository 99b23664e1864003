// Renderer benchmark fixture, used by bench/render.bench.sh.
//   xizor-render-bench run [SECONDS]     one JSON line per template: pages rendered per second (one thread)
//   xizor-render-bench page NAME SCHEME  prints the production page of a template (for the size figures)
//   xizor-render-bench limits            one JSON line: every page form of the document at every limit
//                                        (time and page size per form, peak RSS growth), and how long the
//                                        issue's 5,000 × 5,000 amplification takes to stop at the budget
import Foundation
import PaywallFormat
import PaywallRenderer

let arguments = Array(CommandLine.arguments.dropFirst())

/// A built-in template; one that does not parse means a broken build, said and exited on.
func template(_ name: String) -> JSONValue? {
    do { return try PaywallTemplates.document(named: name) } catch {
        FileHandle.standardError.write(Data("xizor-render-bench: \(error)\n".utf8))
        exit(1)
    }
}

func renderOnce(_ document: JSONValue, _ options: RenderOptions) -> [UInt8] {
    (try? PaywallRenderer.render(document, options: options))?.html ?? []
}

switch arguments.first {
case "page":
    guard arguments.count == 3, let document = template(arguments[1]),
        let scheme = ColorScheme(rawValue: arguments[2])
    else {
        FileHandle.standardError.write(Data("usage: xizor-render-bench page NAME light|dark\n".utf8))
        exit(64)
    }
    FileHandle.standardOutput.write(Data(renderOnce(document, RenderOptions(colorScheme: scheme))))
case "run", nil:
    let seconds = arguments.count > 1 ? Double(arguments[1]) ?? 2 : 2
    for (name, document) in try PaywallTemplates.all() {
        let options = RenderOptions(locale: "en", colorScheme: .dark, mode: .production)
        var bytes = 0
        for _ in 0..<20 { bytes = renderOnce(document, options).count }  // warm-up
        let start = DispatchTime.now().uptimeNanoseconds
        var iterations = 0
        var elapsed = 0.0
        repeat {
            for _ in 0..<50 { bytes = renderOnce(document, options).count }
            iterations += 50
            elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        } while elapsed < seconds
        print(
            "{\"template\":\"\(name)\",\"pagesPerSecond\":\(Int(Double(iterations) / elapsed)),\"iterations\":\(iterations),\"bytes\":\(bytes)}"
        )
    }
case "limits":
    let example = DocumentLimits.exampleAtEveryLimit()
    let read = PaywallReader.read(example)
    let baseline = peakResidentKiB()
    var milliseconds: [Double] = []
    var largest = 0
    for _ in 0..<3 {  // three rounds: the first warms up, the figures are the worst form of any round
        for locale in read.document.locales {
            for scheme in ColorScheme.allCases {
                let start = DispatchTime.now().uptimeNanoseconds
                let options = RenderOptions(locale: locale, colorScheme: scheme, mode: .production)
                let bytes: Int
                do { bytes = try PaywallRenderer.render(read.document, options: options).html.count } catch {
                    // A form of the largest valid document that does not render is the finding itself.
                    FileHandle.standardError.write(Data("limits: \(locale) \(scheme) failed: \(error)\n".utf8))
                    exit(1)
                }
                milliseconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                largest = max(largest, bytes)
            }
        }
    }
    let peakGrowth = peakResidentKiB() - baseline
    var amplification = example
    let option: JSONValue = [
        "type": "stack", "direction": "vertical",
        "children": .array(Array(repeating: ["type": "text", "text": ["en": "{{product.price}}"]], count: 5_000)),
    ]
    _ = amplification.set(
        .array((0..<5_000).map { ["slot": .string("s\($0)"), "storeProductId": .string("com.x.s\($0)")] }),
        at: JSONPath([.key("products")]))
    _ = amplification.set(["type": "product_selector", "option": option], at: JSONPath([.key("root")]))
    let start = DispatchTime.now().uptimeNanoseconds
    let outcome: String
    do {
        _ = try PaywallRenderer.render(amplification, options: RenderOptions(locale: "en", mode: .preview))
        outcome = "rendered"
    } catch { outcome = "\(error)" }
    let stopMs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    let sorted = milliseconds.sorted()
    print(
        "{\"forms\":\(read.document.locales.count * 2),\"p50Ms\":\(sorted[sorted.count / 2]),\"maxMs\":\(sorted.last ?? 0),"
            + "\"largestPageBytes\":\(largest),\"peakRSSGrowthKiB\":\(peakGrowth),\"amplificationStopMs\":\(stopMs),"
            + "\"amplificationOutcome\":\"\(outcome)\"}")
default:
    FileHandle.standardError.write(
        Data("usage: xizor-render-bench run [SECONDS] | page NAME light|dark | limits\n".utf8))
    exit(64)
}

/// The process's peak resident set (`VmHWM`), in KiB.
func peakResidentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
        FileHandle.standardError.write(Data("limits: /proc/self/status is unreadable; no memory figure\n".utf8))
        exit(1)
    }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
    return 0
}
