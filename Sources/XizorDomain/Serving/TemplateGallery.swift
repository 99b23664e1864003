import PaywallFormat
import PaywallRenderer
import Synchronization

/// The built-in templates' preview pages, rendered once per (template, appearance) and kept: the
/// console's gallery shows them as thumbnails, and they are the same for every app, so no request
/// costs more than a lookup after the first. Bounded by the templates there are (an unknown name
/// throws before anything is kept).
package final class TemplateGallery: Sendable {
    private let previews: PreviewService
    private let pages = Mutex<[String: PreviewPage]>([:])

    package init(previews: PreviewService) { self.previews = previews }

    package func page(_ name: String, _ scheme: ColorScheme) throws -> PreviewPage {
        let key = name + "/" + scheme.rawValue
        if let page = pages.withLock({ $0[key] }) { return page }
        let page = try previews.template(named: name, colorScheme: scheme)
        pages.withLock { $0[key] = page }
        return page
    }
}
