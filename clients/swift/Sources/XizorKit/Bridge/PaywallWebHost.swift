#if canImport(WebKit)
    import Foundation
    import WebKit

    /// What only the app can do: StoreKit products and purchases, and leaving the paywall.
    @MainActor
    public protocol PaywallWebHostDelegate: AnyObject {
        /// The products of the paywall's slots, formatted for display (asked once, on `ready`).
        func products(for paywall: Paywall) async -> [String: ProductInfo]
        /// Buy the request's product, with its `appAccountToken` (StoreKit's
        /// `product.purchase(options: [.appAccountToken(token)])`); the page shows `pending` until this
        /// returns. Implement this or `purchase(slot:storeProductId:in:)`, which it calls by default.
        func purchase(_ request: PurchaseRequest, in host: PaywallWebHost) async -> PurchaseState
        /// Buy the slot's product: the form before `PurchaseRequest`, still called for delegates that
        /// implement only it. Without either, every purchase fails.
        func purchase(slot: String, storeProductId: String?, in host: PaywallWebHost) async -> PurchaseState
        func restore(in host: PaywallWebHost) async
        func close(_ host: PaywallWebHost)
        func open(_ url: URL, from host: PaywallWebHost)
        func custom(name: String, payload: JSONValue?, in host: PaywallWebHost)
    }

    extension PaywallWebHostDelegate {
        public func purchase(_ request: PurchaseRequest, in host: PaywallWebHost) async -> PurchaseState {
            await purchase(slot: request.slot, storeProductId: request.storeProductId, in: host)
        }

        public func purchase(slot: String, storeProductId: String?, in host: PaywallWebHost) async -> PurchaseState {
            .failed
        }

        public func custom(name: String, payload: JSONValue?, in host: PaywallWebHost) {}
    }

    /// A `WKWebView` showing a paywall page (`PaywallFormat.page`): answers `ready` with products,
    /// forwards events to the queue with their attribution, answers duration timers from the server,
    /// and hands purchase, restore, close and links to the delegate. Add `webView` to the view
    /// hierarchy after `ready` has been answered (`onReady`), so prices never show empty.
    @MainActor
    public final class PaywallWebHost: NSObject {
        public let webView: WKWebView
        public weak var delegate: PaywallWebHostDelegate?
        /// Called once the page is ready and has its products.
        public var onReady: (() -> Void)?
        public let paywall: Paywall
        private let xizor: Xizor
        private let subscriberId: String?

        public init(
            xizor: Xizor, paywall: Paywall, subscriberId: String? = nil,
            configuration: WKWebViewConfiguration = WKWebViewConfiguration()
        ) {
            self.xizor = xizor
            self.paywall = paywall
            self.subscriberId = subscriberId
            let controller = WKUserContentController()
            configuration.userContentController = controller
            configuration.allowsInlineMediaPlayback = true
            configuration.mediaTypesRequiringUserActionForPlayback = []
            webView = WKWebView(frame: .zero, configuration: configuration)
            super.init()
            controller.add(WeakMessageHandler(self), name: "xizor")
            webView.navigationDelegate = self
            webView.isOpaque = false
        }

        /// Loads the page; the base URL is the server, so relative asset URLs resolve there.
        public func load() {
            guard let html = paywall.page else {
                preconditionFailure("PaywallWebHost shows pages: fetch with format: .page")
            }
            webView.loadHTMLString(html, baseURL: xizor.configuration.baseURL)
        }

        /// Delivers a message to the page.
        public func send(_ message: HostMessage) {
            guard let script = try? message.javaScript() else { return }
            webView.evaluateJavaScript(script, completionHandler: nil)
        }

        /// Asks the page to close itself (it sends `paywall_close` once and releases its media).
        public func dismiss() { send(.dismiss) }

        fileprivate func handle(_ message: PageMessage) {
            switch message {
            case .ready:
                Task {
                    let products = await delegate?.products(for: paywall) ?? [:]
                    send(.products(products))
                    onReady?()
                }
            case .purchase(let slot, _):
                send(.purchaseState(.pending, slot: slot))
                let request = PurchaseRequest(message, subscriberId: subscriberId)
                // The presentation is sent now, while the store's sheet is up, not at the next interval:
                // the server credits the App Store's notification to it only once it has it (docs/revenue.md).
                Task { await xizor.flush() }
                Task {
                    var state = PurchaseState.failed
                    if let request, let delegate { state = await delegate.purchase(request, in: self) }
                    send(.purchaseState(state, slot: slot))
                    await xizor.track(
                        state == .completed ? XizorEvent.purchaseCompleted : XizorEvent.purchaseFailed,
                        paywall: paywall, subscriberId: subscriberId, properties: ["slot": .string(slot)])
                }
            case .restore:
                Task { await delegate?.restore(in: self) }
            case .close:
                delegate?.close(self)
            case .openURL(let raw):
                if let url = URL(string: raw) { delegate?.open(url, from: self) }
            case .custom(let name, let payload):
                delegate?.custom(name: name, payload: payload, in: self)
            case .timerStart(_, let nodeId, _):
                guard let subscriberId else { return }
                Task {
                    if let startedAt = try? await xizor.timerStart(
                        subscriberId: subscriberId, paywallId: paywall.paywallId, nodeId: nodeId)
                    {
                        send(.timerStart(nodeId: nodeId, startedAt: startedAt))
                    }
                }
            case .event:
                guard let event = XizorEvent(pageMessage: message, paywall: paywall, subscriberId: subscriberId) else {
                    return
                }
                Task { await xizor.track(event) }
            case .unknown:
                break
            }
        }
    }

    extension PaywallWebHost: WKNavigationDelegate {
        /// The page never navigates itself (links are `open_url` messages); anything else that tries
        /// is handed to the delegate instead of replacing the paywall.
        public func webView(
            _ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction,
            decisionHandler: @escaping @MainActor @Sendable (WKNavigationActionPolicy) -> Void
        ) {
            if navigationAction.navigationType == .other {
                decisionHandler(.allow)
            } else {
                if let url = navigationAction.request.url { delegate?.open(url, from: self) }
                decisionHandler(.cancel)
            }
        }
    }

    /// WKUserContentController keeps its handlers strongly; this breaks the cycle with the host.
    private final class WeakMessageHandler: NSObject, WKScriptMessageHandler {
        weak var host: PaywallWebHost?

        init(_ host: PaywallWebHost) { self.host = host }

        func userContentController(_ controller: WKUserContentController, didReceive message: WKScriptMessage) {
            MainActor.assumeIsolated {
                guard let decoded = try? PageMessage(body: message.body) else { return }
                host?.handle(decoded)
            }
        }
    }
#endif
