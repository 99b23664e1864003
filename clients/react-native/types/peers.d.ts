// The parts of the peer dependencies' APIs this package uses, declared because there is no npm here
// to install their @types (React's own types, react-native's and react-native-webview's ship in an
// app's node_modules and agree with these). Kept to exactly what src/react.ts and src/device.ts call.

declare module "react" {
  export type ReactElement = { readonly type: unknown; readonly props: unknown };
  export type ReactNode = ReactElement | string | number | boolean | null | undefined;
  export function createElement(type: unknown, props?: Record<string, unknown> | null, ...children: ReactNode[]): ReactElement;
  export function useState<T>(initial: T | (() => T)): [T, (value: T | ((previous: T) => T)) => void];
  export function useEffect(effect: () => void | (() => void), dependencies?: readonly unknown[]): void;
  export function useRef<T>(initial: T): { current: T };
  export function useMemo<T>(factory: () => T, dependencies: readonly unknown[]): T;
}

declare module "react-native" {
  export const Platform: { OS: string; Version: string | number; constants?: { Release?: string } };
  export const View: unknown;
  export const AppState: {
    addEventListener(type: "change", listener: (state: string) => void): { remove(): void };
  };
}

declare module "react-native-webview" {
  export type WebViewMessageEvent = { nativeEvent: { data: string } };
  export type WebViewSource = { html: string; baseUrl?: string };
  export type WebViewNavigation = { url: string; navigationType?: string };
  export interface WebViewHandle {
    injectJavaScript(script: string): void;
  }
  export const WebView: unknown;
}
