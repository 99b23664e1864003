// docs/client-react-native.md's install, run as written into a throwaway app beside a copy of the
// package, and its "ten lines" type-checked there against React's real types (Debian's @types/react).
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync, spawnSync } from "node:child_process";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const docs = readFileSync(join(packageRoot, "../../docs/client-react-native.md"), "utf8");

/** The fenced block after `<!-- install: NAME … -->`. */
function snippet(name, language) {
  const pattern = new RegExp(`<!-- install: ${name} [^\\n]*-->\\n\`\`\`${language}\\n([\\s\\S]*?)\\n\`\`\`\\n`);
  const match = pattern.exec(docs);
  assert.ok(match, `docs/client-react-native.md has a marked ${language} block '${name}'`);
  return match[1];
}

/** The app's own modules the ten lines import, as they would exist in an app: declared minimally
 * (the storage's signatures are @react-native-async-storage/async-storage's own, from its types.ts). */
const APP_DECLARATIONS = `
declare module "@react-native-async-storage/async-storage" {
  type KeyValuePair = [string, string | null];
  const AsyncStorage: {
    getItem(key: string, callback?: (error?: Error | null, result?: string | null) => void): Promise<string | null>;
    setItem(key: string, value: string, callback?: (error?: Error | null) => void): Promise<void>;
    removeItem(key: string, callback?: (error?: Error | null) => void): Promise<void>;
    clear(callback?: (error?: Error | null) => void): Promise<void>;
    getAllKeys(callback?: (error?: Error | null, result?: readonly string[]) => void): Promise<readonly string[]>;
    multiGet(keys: readonly string[], callback?: (errors?: readonly (Error | null)[] | null, result?: readonly KeyValuePair[]) => void): Promise<readonly KeyValuePair[]>;
    multiSet(keyValuePairs: ReadonlyArray<readonly [string, string]>, callback?: (errors?: readonly (Error | null)[] | null) => void): Promise<void>;
    multiRemove(keys: readonly string[], callback?: (errors?: readonly (Error | null)[] | null) => void): Promise<void>;
  };
  export default AsyncStorage;
}
declare module "react-native" {
  export const Linking: { openURL(url: string): Promise<any> };
}
`;

const STORE = `import type { Paywall, ProductInfo } from "@xizor/react-native";
export async function formattedProducts(paywall: Paywall): Promise<Record<string, ProductInfo>> {
  return { yearly: { price: "49,99 €", period: "year", title: paywall.paywallId } };
}
export async function buy(productId: string | undefined): Promise<boolean> {
  return productId !== undefined;
}
`;

const TSCONFIG = {
  compilerOptions: {
    target: "ES2020",
    module: "ES2020",
    moduleResolution: "node",
    jsx: "react-jsx",
    strict: true,
    noEmit: true,
    resolveJsonModule: true,
    allowSyntheticDefaultImports: true,
    // The Debian type packages are symlinked into node_modules; resolving from the link keeps their
    // own imports (csstype, prop-types) inside the app's node_modules.
    preserveSymlinks: true,
    types: [],
  },
  include: ["*.tsx", "*.ts", "*.d.ts"],
};

function run(command, cwd, env) {
  const result = spawnSync("sh", ["-e", "-c", command], { cwd, env: { ...process.env, ...env }, encoding: "utf8" });
  assert.equal(result.status, 0, `${command}\n(in ${cwd})\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

test("the documented install works as written, and the ten lines type-check in the app", () => {
  const root = mkdtempSync(join(tmpdir(), "xizor-rn-install-"));
  try {
    // The checkout: the package's sources as committed (no dist, no node_modules, no tarball).
    const checkout = join(root, "xizor", "clients", "react-native");
    cpSync(packageRoot, checkout, {
      recursive: true,
      filter: (source) => !/\/(node_modules|dist)(\/|$)|\.tgz$/.test(source.slice(packageRoot.length)),
    });
    // The app, as it is before adding the package: React, React Native and the web view installed
    // (here Debian's React and the test stand-ins, whose versions satisfy the peer ranges).
    const app = join(root, "my-app");
    mkdirSync(app);
    const standIns = join(packageRoot, "test", "stand-ins");
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({
        name: "my-app",
        version: "1.0.0",
        private: true,
        dependencies: {
          react: "file:/usr/share/nodejs/react",
          "react-native": `file:${join(standIns, "react-native")}`,
          "react-native-webview": `file:${join(standIns, "react-native-webview")}`,
        },
      }),
    );
    // No registry here: npm must resolve everything from what is on disk.
    const npm = { npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false", npm_config_cache: join(root, "npm-cache") };
    run("npm install", app, npm);

    const sections = snippet("npm", "sh").split(/^# /m).filter(Boolean);
    assert.equal(sections.length, 2, "two steps: in the checkout, then in the app");
    const [inCheckout, inApp] = sections.map((section) => section.slice(section.indexOf("\n") + 1));
    assert.match(sections[0], /^in the xizor checkout\n/);
    assert.match(sections[1], /^in the app/);
    run(inCheckout, join(root, "xizor"), npm);
    run(inApp, app, npm);
    const installed = JSON.parse(readFileSync(join(app, "node_modules/@xizor/react-native/package.json"), "utf8"));
    assert.equal(installed.version, JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")).version);
    assert.ok(existsSync(join(app, "node_modules/@xizor/react-native/dist/index.d.ts")), "the tarball carries the compiled package and its types");

    // The installed package loads (ES modules, its peers resolved from the app).
    const loaded = execFileSync(
      process.execPath,
      ["--input-type=module", "-e", 'const m = await import("@xizor/react-native"); const f = await import("@xizor/react-native/format"); console.log(typeof m.configure, typeof m.XizorPaywall, Object.keys(f.templates).length > 0);'],
      { cwd: app, env: { ...process.env, NODE_PATH: "/usr/share/nodejs" }, encoding: "utf8" },
    );
    assert.equal(loaded.trim(), "function function true");

    // The ten lines, exactly as documented, in the app beside its own modules.
    writeFileSync(join(app, "App.tsx"), snippet("app", "tsx"));
    writeFileSync(join(app, "store.ts"), STORE);
    writeFileSync(join(app, "app-modules.d.ts"), APP_DECLARATIONS);
    writeFileSync(join(app, "xizor-fallback.json"), JSON.stringify({ placements: {} }));
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify(TSCONFIG));
    mkdirSync(join(app, "node_modules/@types"), { recursive: true });
    for (const name of ["@types/react", "@types/prop-types", "@types/scheduler", "csstype"]) {
      symlinkSync(join("/usr/share/nodejs", name), join(app, "node_modules", name));
    }
    run("tsc -p .", app);

    // The check is real: a callback of the wrong type is refused.
    writeFileSync(join(app, "App.tsx"), snippet("app", "tsx").replace('"completed" : "failed"', '"done" : "failed"'));
    const refused = spawnSync("tsc", ["-p", "."], { cwd: app, encoding: "utf8" });
    assert.notEqual(refused.status, 0);
    assert.match(refused.stdout, /"done"/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
