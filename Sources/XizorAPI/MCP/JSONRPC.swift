import PaywallFormat
import XizorDomain

/// JSON-RPC 2.0 error codes the MCP endpoint answers (the spec's reserved range).
enum JSONRPCErrorCode: Int, Sendable {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
}

/// A JSON-RPC error object; `data` carries details such as validation issues with their paths.
struct JSONRPCError: Error, Sendable {
    let code: JSONRPCErrorCode
    let message: String
    var data: JSONValue?

    init(_ code: JSONRPCErrorCode, _ message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    var json: JSONValue {
        var object: [String: JSONValue] = ["code": .number(code.rawValue), "message": .string(message)]
        if let data { object["data"] = data }
        return .object(object)
    }
}

/// One JSON-RPC message as received: classified once, so the dispatcher never looks at raw shapes.
enum JSONRPCMessage: Sendable {
    /// A call that wants an answer. `id` is a string or a number (MCP forbids null).
    case request(id: JSONValue, method: String, params: JSONValue?)
    /// A call without an id: never answered.
    case notification(method: String, params: JSONValue?)
    /// A response the client sent us (this server sends no requests, so it is only acknowledged).
    case response
    /// Not a valid message; answered with `error` and the id when one could be read.
    case invalid(id: JSONValue, error: JSONRPCError)

    init(_ value: JSONValue) {
        guard let object = value.objectValue else {
            self = .invalid(id: .null, error: JSONRPCError(.invalidRequest, "A JSON-RPC message is a JSON object."))
            return
        }
        let rawID = object["id"]
        let usableID: JSONValue = rawID.flatMap(JSONRPCMessage.validID) ?? .null
        guard object["jsonrpc"] == .string("2.0") else {
            self = .invalid(
                id: usableID, error: JSONRPCError(.invalidRequest, "The message needs \"jsonrpc\": \"2.0\"."))
            return
        }
        guard let methodValue = object["method"] else {
            if rawID != nil, object["result"] != nil || object["error"] != nil {
                self = .response
            } else {
                self = .invalid(
                    id: usableID,
                    error: JSONRPCError(.invalidRequest, "The message has no \"method\" (and is not a response)."))
            }
            return
        }
        guard let method = methodValue.stringValue else {
            self = .invalid(id: usableID, error: JSONRPCError(.invalidRequest, "\"method\" is a string."))
            return
        }
        if let params = object["params"], params.objectValue == nil, params.arrayValue == nil {
            self = .invalid(
                id: usableID, error: JSONRPCError(.invalidRequest, "\"params\" is an object (or array) when present."))
            return
        }
        guard let rawID else {
            self = .notification(method: method, params: object["params"])
            return
        }
        guard let id = JSONRPCMessage.validID(rawID) else {
            self = .invalid(
                id: .null, error: JSONRPCError(.invalidRequest, "\"id\" is a string or an integer, never null."))
            return
        }
        self = .request(id: id, method: method, params: object["params"])
    }

    /// MCP request ids: strings or integers.
    static func validID(_ value: JSONValue) -> JSONValue? {
        switch value {
        case .string: return value
        case .number(let n) where n.isIntegral: return value
        default: return nil
        }
    }

    /// The answer to a request.
    static func result(id: JSONValue, _ result: JSONValue) -> JSONValue {
        ["jsonrpc": "2.0", "id": id, "result": result]
    }

    static func failure(id: JSONValue, _ error: JSONRPCError) -> JSONValue {
        ["jsonrpc": "2.0", "id": id, "error": error.json]
    }
}
