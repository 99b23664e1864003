/* Xizor editor bridge: in preview pages only, and inert until the page that frames it (the console's
   editor) sends {xizor: "edit"}. Then a click selects the node under the pointer instead of acting
   (buttons do not buy, links do not open), hovers are reported, and the editor's selection and hover
   are outlined. It sends node paths (data-xz-path) and nothing else. */
(function () {
  "use strict";
  if (window.parent === window) return;
  var editing = false;
  function nodeOf(target) {
    return target && target.closest ? target.closest("[data-xz-path]") : null;
  }
  function send(kind, element) {
    window.parent.postMessage({ xizor: kind, path: element ? element.getAttribute("data-xz-path") : null }, "*");
  }
  function mark(kind, path, reveal) {
    var attribute = "data-xz-" + kind, old = document.querySelectorAll("[" + attribute + "]"), i;
    for (i = 0; i < old.length; i++) old[i].removeAttribute(attribute);
    if (typeof path !== "string") return;
    var all = document.querySelectorAll("[data-xz-path]"), first = null;
    for (i = 0; i < all.length; i++) {
      if (all[i].getAttribute("data-xz-path") !== path) continue;
      all[i].setAttribute(attribute, "");
      if (!first) first = all[i];
    }
    // Scrolls this page only (scrollIntoView would scroll the console around the frame too).
    if (reveal && first) {
      var box = first.getBoundingClientRect();
      if (box.top < 0 || box.bottom > window.innerHeight) window.scrollBy(0, box.top - window.innerHeight / 3);
    }
  }
  function start() {
    if (editing) return;
    editing = true;
    var style = document.createElement("style");
    style.textContent = "[data-xz-path]{cursor:default}[data-xz-hovered]{outline:1px dashed #2563eb;outline-offset:1px}" +
      "[data-xz-selected]{outline:2px solid #2563eb;outline-offset:2px}";
    document.head.appendChild(style);
    document.addEventListener("click", function (event) {
      event.preventDefault();
      event.stopPropagation();
      send("select", nodeOf(event.target));
    }, true);
    document.addEventListener("mouseover", function (event) { send("hover", nodeOf(event.target)); }, true);
    document.addEventListener("mouseleave", function () { send("hover", null); });
  }
  window.addEventListener("message", function (event) {
    if (event.source !== window.parent) return;
    var message = event.data;
    if (!message || typeof message !== "object") return;
    if (message.xizor === "edit") start();
    else if (message.xizor === "select") mark("selected", message.path, true);
    else if (message.xizor === "hover") mark("hovered", message.path, false);
  });
  window.parent.postMessage({ xizor: "loaded" }, "*");
})();
