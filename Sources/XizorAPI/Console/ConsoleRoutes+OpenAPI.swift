import HTTP
import XizorConsole
import XizorDomain

/// The OpenAPI description of each operation `ConsoleRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension ConsoleRoutes {
    static let redirectToConsole = OperationDoc(
        "redirectToConsole", summary: "Redirect to the console", tag: "console",
        responses: [.empty(302, "To the console's page (`console.path`).")])

    static let getConsole = OperationDoc(
        "getConsole", summary: "The console's page",
        description:
            "HTML that loads the versioned ES modules and stylesheet; revalidated on every load (strong ETag), under a strict Content-Security-Policy.",
        tag: "console",
        responses: [
            APIResponseSpec(
                status: 200, description: "The page.", schema: ["type": "string"], contentType: "text/html",
                headers: [
                    ("ETag", "Strong tag of the page."),
                    ("Content-Security-Policy", "Own scripts, styles and API only."),
                ])
        ])

    static let getConsoleAsset = OperationDoc(
        "getConsoleAsset", summary: "A module, stylesheet or icon of the console",
        description:
            "Under the version (a hash of every asset) the page names: immutable, cached for a year. Another version is 404.",
        tag: "console",
        parameters: [
            .path("version", "The console's version, as its page names it."),
            .path("file", "`app.js`, `console.css`, …"),
        ],
        responses: [
            APIResponseSpec(
                status: 200, description: "The file.", schema: ["type": "string"],
                contentType: "text/javascript",
                headers: [("ETag", "Strong tag of the file."), ("Cache-Control", "Immutable for a year.")]),
            .problem(404, "No such file in this version of the console."),
        ])
}
