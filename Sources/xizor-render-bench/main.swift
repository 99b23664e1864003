// Renderer benchmark fixture, used by bench/render.bench.sh.
//   xizor-render-bench run [SECONDS]     one JSON line per template: pages rendered per second (one thread)
//   xizor-render-bench page NAME SCHEME  prints the production page of a template (for the size figures)
import Foundation
import PaywallFormat
import PaywallRenderer

let arguments = Array(CommandLine.arguments.dropFirst())

func renderOnce(_ document: JSONValue, _ options: RenderOptions) -> [UInt8] {
    (try? PaywallRenderer.render(document, options: options))?.html ?? []
}

switch arguments.first {
case "page":
    guard arguments.count == 3, let document = PaywallTemplates.document(named: arguments[1]),
          let scheme = ColorScheme(rawValue: arguments[2]) else {
        FileHandle.standardError.write(Data("usage: xizor-render-bench page NAME light|dark\n".utf8))
        exit(64)
    }
    FileHandle.standardOutput.write(Data(renderOnce(document, RenderOptions(colorScheme: scheme))))
case "run", nil:
    let seconds = arguments.count > 1 ? Double(arguments[1]) ?? 2 : 2
    for (name, document) in PaywallTemplates.all {
        let options = RenderOptions(locale: "en", colorScheme: .dark, mode: .production)
        var bytes = 0
        for _ in 0..<20 { bytes = renderOnce(document, options).count }   // warm-up
        let start = DispatchTime.now().uptimeNanoseconds
        var iterations = 0
        var elapsed = 0.0
        repeat {
            for _ in 0..<50 { bytes = renderOnce(document, options).count }
            iterations += 50
            elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        } while elapsed < seconds
        print("{\"template\":\"\(name)\",\"pagesPerSecond\":\(Int(Double(iterations) / elapsed)),\"iterations\":\(iterations),\"bytes\":\(bytes)}")
    }
default:
    FileHandle.standardError.write(Data("usage: xizor-render-bench run [SECONDS] | page NAME light|dark\n".utf8))
    exit(64)
}
