import { AppState, Platform } from "react-native";
import type { DeviceInfo, XizorConfiguration } from "./configuration.js";
import { setSharedXizor } from "./shared.js";
import { Xizor } from "./xizor.js";

/** What `configure` takes: the configuration, with the device read from React Native unless given. */
export type ConfigureOptions = Omit<XizorConfiguration, "device"> & {
  /** The app's version as rules compare it (`device.appVersion`), e.g. `Application.nativeApplicationVersion` (Expo). */
  appVersion?: string;
  /** Overrides what is read from React Native (tests; an app that knows better). */
  device?: Partial<DeviceInfo>;
};

/** The device as the server's rules read it: `Platform.OS`, `Platform.Version`, the locale from `Intl`. */
export function reactNativeDevice(appVersion?: string, overrides: Partial<DeviceInfo> = {}): DeviceInfo {
  let locale: string | undefined;
  try {
    locale = Intl.DateTimeFormat().resolvedOptions().locale;
  } catch {
    locale = undefined;
  }
  return {
    platform: Platform.OS,
    // Android's Platform.Version is the API level (34); rules compare the OS version (14).
    osVersion: Platform.OS === "android" && Platform.constants?.Release ? Platform.constants.Release : String(Platform.Version),
    locale,
    appVersion,
    ...overrides,
  };
}

let background: { remove(): void } | undefined;

/**
 * Configures the shared instance once, at start-up (calling it again replaces it): the device
 * headers from React Native, and the event queue flushed whenever the app goes to the background
 * (where iOS may suspend it), as XizorKit does on `didEnterBackground`.
 */
export function configure(options: ConfigureOptions): Xizor {
  const { appVersion, device, ...rest } = options;
  const xizor = new Xizor({ ...rest, device: reactNativeDevice(appVersion, device) });
  setSharedXizor(xizor);
  background?.remove();
  background = AppState.addEventListener("change", (state) => {
    if (state === "background") void xizor.flush();
  });
  return xizor;
}
