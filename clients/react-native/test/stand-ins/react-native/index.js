// A stand-in for the two objects @xizor/react-native reads of react-native, honest about being one:
// Platform as an Android 14 device would report it, and an AppState whose changes a test emits.
export const Platform = { OS: "android", Version: 34 };

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
