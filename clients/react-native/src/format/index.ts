// `@xizor/react-native/format`: the paywall document format without the SDK's networking, for a
// native renderer, an editor or tests. The types and templates are generated from the server
// (scripts/generate-format.mjs); the text functions are the shared, vector-pinned ports.

export * from "./document.js";
export * from "./templates.js";
export {
  extractVariables,
  parseMarkdownLite,
  pickLocalizedText,
  resolveText,
  type LocalizedTextInput,
  type MissingVariablePolicy,
  type StyledSpan,
  type TextContext,
} from "./text.js";
