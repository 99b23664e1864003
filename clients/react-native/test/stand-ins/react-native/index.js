// A stand-in for what @xizor/react-native reads of react-native, honest about being one: Platform as
// an Android 14 device reports it (API level 34), a View that renders a host element of that name,
// and an AppState whose changes a test emits.
import React from "react";

export const Platform = { OS: "android", Version: 34, constants: { Release: "14" } };

export function View(props) {
  return React.createElement("View", props);
}

const listeners = new Set();
export const AppState = {
  addEventListener(type, listener) {
    if (type !== "change") throw new Error(`the stand-in AppState has no '${type}' event`);
    listeners.add(listener);
    return { remove: () => listeners.delete(listener) };
  },
  /** Test-only: what React Native does when the app changes state. */
  emit(state) {
    for (const listener of listeners) listener(state);
  },
  get listenerCount() {
    return listeners.size;
  },
};
