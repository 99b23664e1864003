// The globals React Native (Hermes or JSC) and Node 20 both provide, declared here because the
// package compiles without `lib.dom` (a React Native app has no `document`) and without npm's
// @types packages. Only what the package uses; an app's own React Native types declare the same.

interface XizorAbortSignal {
  readonly aborted: boolean;
}
declare class AbortController {
  readonly signal: XizorAbortSignal;
  abort(reason?: unknown): void;
}
interface XizorHeaders {
  get(name: string): string | null;
  forEach(callback: (value: string, name: string) => void): void;
}
interface XizorFetchResponse {
  readonly status: number;
  readonly headers: XizorHeaders;
  text(): Promise<string>;
}
interface XizorFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: XizorAbortSignal;
}
declare function fetch(url: string, init?: XizorFetchInit): Promise<XizorFetchResponse>;
declare function setTimeout(callback: () => void, ms: number): unknown;
declare function clearTimeout(handle: unknown): void;
declare function setInterval(callback: () => void, ms: number): unknown;
declare function clearInterval(handle: unknown): void;
declare function encodeURIComponent(value: string): string;
declare const console: { warn(...values: unknown[]): void };
declare const crypto: { randomUUID?: () => string } | undefined;
