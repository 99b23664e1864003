// The package for apps: the core, the component and hook, and `configure`, which reads the device
// from React Native.
export * from "./core.js";
export { configure, reactNativeDevice, type ConfigureOptions } from "./device.js";
export {
  useXizorPaywall,
  XizorPaywall,
  type PaywallState,
  type UseXizorPaywallOptions,
  type XizorPaywallProps,
} from "./react.js";
