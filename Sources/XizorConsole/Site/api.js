// The public REST API, and nothing else: the console is one more client of it. The credential
// lives in sessionStorage (gone with the tab), never in a URL or a log.

const STORE = "xizor.console.credential";

/** An answer that was not 2xx, from its application/problem+json body when there is one. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || `HTTP ${status}`);
    this.status = status;
    this.code = problem.code || "http_error";
    this.errors = Array.isArray(problem.errors) ? problem.errors : [];
    this.problem = problem;
  }
}

/**
 * {kind: "secret" | "admin", token} for a key, {kind: "person", csrf, user, memberships, appId} for a
 * person (whose session token is an HttpOnly cookie this script never sees), or null.
 */
export function credential() {
  try {
    return JSON.parse(sessionStorage.getItem(STORE));
  } catch {
    return null;
  }
}

export function signIn(kind, token) {
  sessionStorage.setItem(STORE, JSON.stringify({ kind, token }));
}

/** Keeps a person's session as GET/POST /v1/session described it; `appId` is the app the console acts on. */
export function signInPerson(session, appId) {
  const first = session.memberships[0]?.appId ?? null;
  sessionStorage.setItem(STORE, JSON.stringify({
    kind: "person", csrf: session.csrfToken, user: session.user, memberships: session.memberships,
    appId: appId ?? first,
  }));
}

/** Switches the app a person's console acts on. */
export function chooseApp(appId) {
  const current = credential();
  if (current?.kind !== "person") return;
  sessionStorage.setItem(STORE, JSON.stringify({ ...current, appId }));
}

export function signOut() {
  sessionStorage.removeItem(STORE);
}

/** Calls the API with the session's credential; answers the parsed JSON (null for 204). */
export async function call(method, path, options = {}) {
  return (await request(method, path, options)).body;
}

/** The same call, answering `{body, etag}`: for drafts, saved under `If-Match` with the ETag they were read with. */
export async function request(method, path, { body, headers = {}, token } = {}) {
  const saved = credential();
  const key = token ?? saved?.token;
  // A person's requests carry the session cookie (same origin), the app they act on, and on every
  // change the session's CSRF token (docs/teams.md).
  const init = { method, headers: { ...headers }, cache: "no-store", credentials: "same-origin" };
  if (key) init.headers.Authorization = `Bearer ${key}`;
  if (!token && saved?.kind === "person") {
    if (saved.appId) init.headers["X-Xizor-App-Id"] = saved.appId;
    if (method !== "GET" && method !== "HEAD") init.headers["X-Xizor-CSRF"] = saved.csrf;
  }
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let parsed = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { detail: text };
    }
  }
  if (!response.ok) throw new ApiError(response.status, parsed || {});
  return { body: parsed, etag: response.headers.get("ETag") };
}

export const get = (path, options) => call("GET", path, options);
export const post = (path, body, options) => call("POST", path, { ...options, body });
export const patch = (path, body, options) => call("PATCH", path, { ...options, body });
export const put = (path, body, options) => call("PUT", path, { ...options, body });
export const del = (path, options) => call("DELETE", path, options);

/**
 * Every item of a cursor-paginated list (`{items, nextCursor}`): page after page, at the largest page
 * the API takes, so a picker offers the 201st paywall too. `path` may carry other parameters.
 */
export async function getAll(path) {
  const items = [];
  let cursor = null;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const page = await get(`${path}${separator}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    items.push(...page.items);
    cursor = page.nextCursor ?? null;
  } while (cursor);
  return items;
}
