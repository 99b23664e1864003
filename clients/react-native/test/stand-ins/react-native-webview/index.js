// A stand-in for react-native-webview's WebView, honest about being one: there is no web view in
// Node. It renders a host element named "StandInWebView" with the props it was given and records,
// per mounted instance, those props and every script injected through its ref, so a test can play
// the page (call props.onMessage) and read what the app sent back.
import React from "react";

/** Every WebView mounted, in order: { props, injected: string[], mounted: boolean }. */
export const instances = [];

export const WebView = React.forwardRef(function WebView(props, ref) {
  const record = React.useRef(null);
  if (record.current === null) {
    record.current = { props, injected: [], mounted: true };
    instances.push(record.current);
  }
  record.current.props = props;
  React.useImperativeHandle(ref, () => ({ injectJavaScript: (script) => record.current.injected.push(script) }), []);
  React.useEffect(() => () => void (record.current.mounted = false), []);
  return React.createElement("StandInWebView", { source: props.source, style: props.style });
});

export default WebView;
