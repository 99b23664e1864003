/** Why a call failed, typed so the app can decide: show nothing, retry, or report a misconfiguration. */
export type XizorErrorReason =
  /** The server answered with an error that retrying will not fix (a 4xx other than 429): an unknown
   * placement, nothing published, a revoked key. Carries the problem's `code` and `detail`. */
  | { kind: "rejected"; status: number; code?: string; detail?: string }
  /** No answer from the network, nothing cached, and no usable bundled fallback for the placement. */
  | { kind: "unavailable"; placement: string; underlying: string }
  /** The server's answer could not be understood (not what the SDK endpoint answers). */
  | { kind: "invalidResponse"; why: string };

/** Every error the package throws (XizorKit's `XizorError`, with the same three cases). */
export class XizorError extends Error {
  readonly reason: XizorErrorReason;

  constructor(reason: XizorErrorReason) {
    super(XizorError.describe(reason));
    this.name = "XizorError";
    this.reason = reason;
  }

  /** A definitive answer from the server (4xx), as opposed to not getting one. */
  get isRejection(): boolean {
    return this.reason.kind === "rejected";
  }

  static rejected(status: number, code?: string, detail?: string): XizorError {
    return new XizorError({ kind: "rejected", status, code, detail });
  }

  static unavailable(placement: string, underlying: string): XizorError {
    return new XizorError({ kind: "unavailable", placement, underlying });
  }

  static invalidResponse(why: string): XizorError {
    return new XizorError({ kind: "invalidResponse", why });
  }

  private static describe(reason: XizorErrorReason): string {
    switch (reason.kind) {
      case "rejected":
        return `Xizor answered ${reason.status} ${reason.code ?? ""}: ${reason.detail ?? ""}`;
      case "unavailable":
        return `No paywall for '${reason.placement}': ${reason.underlying}`;
      case "invalidResponse":
        return `Unexpected answer from Xizor: ${reason.why}`;
    }
  }
}
