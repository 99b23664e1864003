/** This package's version, sent as `X-Xizor-SDK-Version` and in the `User-Agent`. Kept equal to package.json's by a test. */
export const XIZOR_REACT_NATIVE_VERSION = "0.1.0";
