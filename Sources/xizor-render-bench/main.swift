// Renders each template repeatedly and prints one JSON line per template:
// {"template", "pages_per_second", "iterations", "bytes"}. Used by bench/render.bench.sh.
import Foundation
import PaywallFormat
import PaywallRenderer

let seconds = Double(CommandLine.arguments.dropFirst().first ?? "2") ?? 2
for (name, document) in PaywallTemplates.all {
    let options = RenderOptions(locale: "en", colorScheme: .dark, mode: .production)
    var bytes = 0
    for _ in 0..<20 { bytes = (try? PaywallRenderer.render(document, options: options))?.html.count ?? 0 }   // warm-up
    let start = DispatchTime.now().uptimeNanoseconds
    var iterations = 0
    var elapsed = 0.0
    repeat {
        for _ in 0..<50 { bytes = (try? PaywallRenderer.render(document, options: options))?.html.count ?? 0 }
        iterations += 50
        elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    } while elapsed < seconds
    print("{\"template\":\"\(name)\",\"pages_per_second\":\(Int(Double(iterations) / elapsed)),\"iterations\":\(iterations),\"bytes\":\(bytes)}")
}
