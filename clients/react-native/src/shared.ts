import type { Xizor } from "./xizor.js";

let current: Xizor | undefined;

/** The instance `configure()` made, which `<XizorPaywall>` and `useXizorPaywall` use unless given one. */
export function sharedXizor(): Xizor {
  if (!current) throw new TypeError("Xizor is not configured: call configure({...}) once at start-up, or pass xizor={...}");
  return current;
}

export function setSharedXizor(xizor: Xizor | undefined): void {
  current?.close();
  current = xizor;
}
