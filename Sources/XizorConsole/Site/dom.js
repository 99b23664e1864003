// A few helpers to build the DOM without innerHTML: text is always text, never markup.

/** h("button", {class: "x", onclick: f}, "Label", child, …) */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(element.dataset, value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** Replaces an element's children, skipping the null, undefined and false of conditional parts
 * (which `replaceChildren` would insert as text). */
export function fill(element, ...children) {
  element.replaceChildren(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
}

/** Replaces the main region's content and moves focus to its heading, for keyboard and screen readers. */
export function show(...children) {
  const main = document.getElementById("main");
  fill(main, ...children);
  const heading = main.querySelector("h1");
  if (heading) {
    heading.setAttribute("tabindex", "-1");
    heading.focus();
  }
}

/** Says something in the polite live region (and shows it). */
export function announce(message) {
  const status = document.getElementById("status");
  status.textContent = message;
}

/** A problem shown where it happened: its detail, and each error with its JSON path (unless the
 * caller lists them itself, as buttons that select their place). */
export function problemBox(error, { listErrors = true } = {}) {
  return h("div", { class: "problem", role: "alert" },
    h("p", {}, h("strong", {}, error.code || "error"), ": ", error.message),
    listErrors && error.errors?.length
      ? h("ul", {}, error.errors.map((issue) => h("li", {}, h("code", {}, issue.path), " ", issue.message)))
      : null);
}

/** A form's submit handler: the browser's own submission stopped, `box` cleared, then `action`
 * run; a failure is shown in `box` as a problem, so each form states only what it sends. */
export function submitter(box, action) {
  return async (event) => {
    event.preventDefault();
    fill(box);
    try {
      await action();
    } catch (error) {
      fill(box, problemBox(error));
    }
  };
}

export function time(ms) {
  if (ms === null || ms === undefined) return "—";
  return new Date(ms).toLocaleString();
}

/** A labelled field: the label's for= ties it to the control. */
export function field(label, control, hint) {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), control, hint ? h("p", { class: "hint" }, hint) : null);
}
