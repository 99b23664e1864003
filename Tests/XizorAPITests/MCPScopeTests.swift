import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// Every MCP tool against a key without its scope: hidden from `tools/list`, refused with the REST
/// API's `missing_scope` problem; with only its scope, listed and not refused for scope.
@Suite struct MCPScopeTests {
    @Test func everyToolNeedsItsScopeAndOnlyIt() throws {
        let test = try TestServices("mcp-scopes")
        defer { test.remove() }
        let app = try test.services.keys.createApp(name: "Scopes").appID
        let previews = PreviewService(services: test.services, pages: PageRendering(lottiePlayerURL: nil))
        let toolbox = MCPToolbox(services: test.services, previews: previews)
        let full = AppCaller(appID: app, keyID: "key_full")
        #expect(toolbox.tools(for: full).map(\.name) == toolbox.tools.map(\.name))
        #expect(
            Set(toolbox.tools.map(\.scope)).isSubset(of: [
                // webhooks: the store settings of verified revenue (docs/revenue.md), integrations like webhooks.
                .read, .drafts, .publish, .placements, .experiments, .analytics, .webhooks,
            ]))
        for tool in toolbox.tools {
            #expect(tool.definition["_meta"]?["dev.xizor/scope"] == .string(tool.scope.rawValue))
            #expect(tool.scope != .read || tool.readOnly, "\(tool.name) writes but needs only read")
            let without = AppCaller(
                appID: app, keyID: "key_without", scopes: ScopeSet(APIScope.allCases.filter { $0 != tool.scope }))
            #expect(
                !toolbox.tools(for: without).contains { $0.name == tool.name }, "\(tool.name) listed without its scope")
            let refused = toolbox.call(
                name: tool.name, arguments: [:], caller: without, protocolVersion: MCPProtocolVersion.latest)
            guard case .success(let answer) = refused else {
                Issue.record("\(tool.name): a protocol error")
                continue
            }
            #expect(answer["isError"] == true, "\(tool.name)")
            #expect(answer["structuredContent"]?["error"]?["code"] == "missing_scope", "\(tool.name)")
            #expect(answer["structuredContent"]?["error"]?["scope"] == .string(tool.scope.rawValue), "\(tool.name)")

            let only = AppCaller(appID: app, keyID: "key_only", scopes: ScopeSet([tool.scope]))
            #expect(toolbox.tools(for: only).contains { $0.name == tool.name })
            if case .success(let answer) = toolbox.call(
                name: tool.name, arguments: [:], caller: only, protocolVersion: MCPProtocolVersion.latest)
            {
                #expect(
                    answer["structuredContent"]?["error"]?["code"] != "missing_scope",
                    "\(tool.name) refused with its own scope")
            }
        }
    }
}
