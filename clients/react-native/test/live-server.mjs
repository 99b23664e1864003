// A real `xizor serve` on a loopback port with its own data directory (XizorKit's LiveServer, for
// Node): XIZOR_BIN, else the server package's debug build (`make test` builds it first).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, mkdirSync, readdirSync, readFileSync, writeFileSync, renameSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

export const ADMIN_TOKEN = "xa_test_admin_token_0123456789abcdef";
const here = dirname(fileURLToPath(import.meta.url));
export const BINARY = process.env.XIZOR_BIN ?? join(here, "..", "..", "..", ".build", "debug", "xizor");

export class LiveServer {
  static async start(environment = {}) {
    const server = new LiveServer(environment);
    await server.start(0);
    return server;
  }

  constructor(environment) {
    this.directory = mkdtempSync(join(tmpdir(), "xizor-rn-"));
    this.environment = environment;
    this.port = 0;
    this.process = undefined;
  }

  get base() {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(port) {
    if (this.process) throw new Error("the server is running");
    const child = spawn(BINARY, ["serve", "--port", String(port), "--data-dir", join(this.directory, "data")], {
      env: {
        ...process.env,
        XIZOR_ADMIN_TOKEN: ADMIN_TOKEN,
        XIZOR_LOG_LEVEL: "warning",
        XIZOR_ACCESS_LOG: "false",
        XIZOR_RATE_LIMITS_AUTH_FAILURES_PER_SECOND: "0",
        XIZOR_STORAGE_DRIVER: "sqlite",
        ...this.environment,
      },
      stdio: ["ignore", "pipe", "ignore"],
    });
    // The first stdout line is {"event":"listening","port":N,…}.
    const line = await new Promise((resolve, reject) => {
      const lines = createInterface({ input: child.stdout });
      lines.once("line", (text) => resolve(text));
      child.once("exit", (code) => reject(new Error(`xizor serve exited (${code}) before listening`)));
      child.once("error", reject);
    });
    const event = JSON.parse(line);
    if (event.event !== "listening") throw new Error(`xizor serve said ${line}`);
    this.port = event.port;
    this.process = child;
    child.stdout.resume();
  }

  /** SIGTERM and wait: the port then refuses connections (a server that is down). */
  async stop() {
    const child = this.process;
    if (!child) return;
    this.process = undefined;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGCONT");
      child.kill("SIGTERM");
      await exited;
    }
  }

  async restart() {
    await this.stop();
    await this.start(this.port);
  }

  /** SIGSTOP: connections are accepted by the kernel but nothing answers (a slow server). Resolves
   * once every thread has stopped: a thread busy on the other core can otherwise answer one more
   * request after kill(2) returned. */
  async pause() {
    const pid = this.process?.pid;
    if (pid === undefined) return;
    this.process.kill("SIGSTOP");
    const stopped = () =>
      readdirSync(`/proc/${pid}/task`).every((task) => {
        const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
        return /^\S+ \(.*\) [Tt]/s.test(stat);
      });
    if (!(await eventually(5, stopped))) throw new Error("the server did not stop");
  }

  resume() {
    this.process?.kill("SIGCONT");
  }

  async dispose() {
    await this.stop();
    rmSync(this.directory, { recursive: true, force: true });
  }

  async request(method, path, key, body, headers = {}) {
    const response = await fetch(this.base + path, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: response.status, json, text, headers: response.headers };
  }

  /** An app with a published paywall from `template` behind `placement`. */
  async app({ placement = "onboarding", template = "clean" } = {}) {
    const created = await this.request("POST", "/v1/apps", ADMIN_TOKEN, { name: "React Native tests" });
    if (created.status !== 201) throw new Error(`create app: ${created.text}`);
    const app = new TestApp(this, created.json.secretKey, created.json.publicKey);
    app.paywallId = await app.createPaywall(template);
    await app.publish(app.paywallId);
    await app.assign(placement, app.paywallId);
    return app;
  }
}

/** Runs `body(server, track)` against a fresh server; every client passed to `track` is closed and
 * the server disposed afterwards, whatever the test did. */
export async function withServer(environment, body) {
  const server = await LiveServer.start(environment);
  const clients = [];
  try {
    await body(server, (xizor) => (clients.push(xizor), xizor));
  } finally {
    for (const client of clients) client.close();
    await server.dispose();
  }
}

export class TestApp {
  constructor(server, secretKey, publicKey) {
    this.server = server;
    this.secretKey = secretKey;
    this.publicKey = publicKey;
    this.paywallId = "";
  }

  async dashboard(method, path, body, expect) {
    const answer = await this.server.request(method, path, this.secretKey, body);
    if (answer.status !== expect) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text}`);
    return answer.json;
  }

  async createPaywall(template) {
    return (await this.dashboard("POST", "/v1/paywalls", { template }, 201)).id;
  }

  /** Publishes the draft, first renaming it so the version differs from the last. */
  async publish(paywallId, marker) {
    if (marker !== undefined) {
      const draft = await this.server.request("GET", `/v1/paywalls/${paywallId}/draft`, this.secretKey);
      const document = { ...draft.json.document, name: marker };
      const saved = await this.server.request("PUT", `/v1/paywalls/${paywallId}/draft`, this.secretKey, document, {
        "If-Match": draft.headers.get("etag"),
      });
      if (saved.status !== 200) throw new Error(`save draft: ${saved.status} ${saved.text}`);
    }
    return (await this.dashboard("POST", `/v1/paywalls/${paywallId}/publish`, undefined, 201)).version;
  }

  async assign(placement, paywallId) {
    await this.dashboard("PUT", `/v1/placements/${placement}`, { paywallId }, 200);
  }

  async impressions(paywallId = this.paywallId) {
    const analytics = await this.dashboard("GET", `/v1/paywalls/${paywallId}/analytics`, undefined, 200);
    return (analytics.versions ?? []).reduce((sum, version) => sum + (version.impressions ?? 0), 0);
  }

  /** A cache timeout long enough that a loaded machine never turns an expected network answer into
   * a cached one; the tests of the timeout itself shorten it. */
  configuration(storage, change = {}) {
    return { publicKey: this.publicKey, baseURL: this.server.base, storage, cacheTimeout: 5, requestTimeout: 10, device: { platform: "android" }, ...change };
  }
}

/**
 * A stand-in for AsyncStorage that survives the process as AsyncStorage does (one file per key,
 * written by rename so a reader sees the old value or the new one): "the app is killed and
 * relaunched" is a new FileStorage on the same directory.
 */
export class FileStorage {
  constructor(directory) {
    this.directory = directory;
    mkdirSync(directory, { recursive: true });
  }
  path(key) {
    return join(this.directory, encodeURIComponent(key));
  }
  async getItem(key) {
    try {
      return readFileSync(this.path(key), "utf8");
    } catch {
      return null;
    }
  }
  async setItem(key, value) {
    const temporary = `${this.path(key)}.tmp`;
    writeFileSync(temporary, value);
    renameSync(temporary, this.path(key));
  }
  async removeItem(key) {
    try {
      unlinkSync(this.path(key));
    } catch {}
  }
  async getAllKeys() {
    return readdirSync(this.directory).filter((name) => !name.endsWith(".tmp")).map(decodeURIComponent);
  }
}

export function freshStorage(server) {
  return new FileStorage(mkdtempSync(join(server?.directory ?? tmpdir(), "storage-")));
}

/** Waits (polling) until `condition` holds, or returns false after `seconds`. */
export async function eventually(seconds, condition) {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await sleep(50);
  }
  return condition();
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
