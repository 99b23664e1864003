import PaywallFormat

/// What `GET …/draft` answers — `{"paywallId", "revision", "document", "validation"}` — sent back
/// as it is. The natural round trip (save the answer to a file, edit, `PUT` it back) must store the
/// document, not the envelope around it (which used to be stored as a draft named nothing, with
/// only "missing schemaVersion" to hint at what happened). A body is taken for an envelope only
/// when its `document` is an object and every other key is one the envelope has: no paywall
/// document has those keys alone at its top level.
package enum DraftEnvelope {
    static let keys: Set<String> = ["paywallId", "revision", "document", "validation"]

    /// The document `body` carries: the envelope's `document`, or `body` itself.
    package static func document(in body: JSONValue) -> JSONValue {
        guard let object = body.objectValue, let document = object["document"], document.objectValue != nil,
            Set(object.keys).isSubset(of: keys)
        else { return body }
        return document
    }
}
