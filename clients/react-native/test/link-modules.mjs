// Makes node_modules for the tests: React and its test renderer from Debian's packages
// (node-react, node-react-test-renderer, in /usr/share/nodejs), and the stand-ins for the two peers
// that exist only on a device (react-native, react-native-webview). Run by `make test-react-native`.
import { mkdirSync, rmSync, symlinkSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const modules = join(root, "node_modules");
mkdirSync(modules, { recursive: true });
const links = {
  react: "/usr/share/nodejs/react",
  "react-test-renderer": "/usr/share/nodejs/react-test-renderer",
  "react-native": join(root, "test/stand-ins/react-native"),
  "react-native-webview": join(root, "test/stand-ins/react-native-webview"),
};
for (const [name, target] of Object.entries(links)) {
  if (!existsSync(target)) throw new Error(`${target} is missing (Debian's node-react and node-react-test-renderer)`);
  rmSync(join(modules, name), { force: true, recursive: true });
  symlinkSync(target, join(modules, name));
}
