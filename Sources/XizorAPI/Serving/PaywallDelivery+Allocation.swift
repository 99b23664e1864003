import HTTP
import PaywallFormat
import XizorDomain

/// What an experiment's published allocation answer is kept by (`PaywallDelivery.allocations`): it
/// is built once per experiment state, placement, key, header set and signing keys.
struct AllocationKey: Hashable, Sendable {
    /// Replaced by every routing reload: an entry never outlives the allocation it encodes.
    let experiment: AppServingSnapshot.RunningExperiment
    let placement: String
    let signer: VerifiedKey
    let bits: UInt32
    let signingGeneration: Int

    static func == (a: AllocationKey, b: AllocationKey) -> Bool {
        a.experiment === b.experiment && a.signer === b.signer && a.placement == b.placement && a.bits == b.bits
            && a.signingGeneration == b.signingGeneration
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(experiment))
        hasher.combine(placement)
    }
}

/// An experiment's published allocation as an answer (docs/scaling.md, "Experiments at the
/// edge"): the runs of buckets per variant, so a client computes its own bucket exactly as the
/// server would (`Allocation.bucket`) and asks for its variant by a URL every client in that
/// variant shares.
extension PaywallDelivery {
    func allocationRepresentation(
        appID: String, _ experiment: AppServingSnapshot.RunningExperiment, request: borrowing DeliveryRequest,
        answer: EdgeCaching.Answer, signer: VerifiedKey, credential: () -> String
    ) throws -> Representation {
        func build() throws -> Representation {
            let body = JSONValue.object([
                "placement": .string(request.placement),
                "allocation": .object([
                    "experimentId": .string(experiment.id), "buckets": .number(Allocation.bucketCount),
                    "ranges": .array(
                        experiment.ranges.map { range in
                            [
                                "from": .number(range.from), "to": .number(range.to),
                                "variant": range.variant.map { .string($0) } ?? .null,
                            ]
                        }),
                    "variants": .array(
                        experiment.variants.map { ["name": .string($0.name), "paywallId": .string($0.paywallID)] }),
                ]),
            ]).canonicalBytes
            var headers: HTTPHeaders = [
                "Content-Type": "application/json", "X-Xizor-Experiment": experiment.id, "X-Xizor-Allocation": "1",
            ]
            try self.finish(
                &headers, appID: appID, placement: request.placement, status: 200, body: body, answer: answer,
                credential: credential())
            return Representation(body: body, headers: headers)
        }
        let representation = try allocations.value(
            for: AllocationKey(
                experiment: experiment, placement: request.placement, signer: signer, bits: answer.bits,
                signingGeneration: signing.generation),
            build: build)
        return try signed(representation, nonce: request.nonce, placement: request.placement, credential: credential)
    }
}
