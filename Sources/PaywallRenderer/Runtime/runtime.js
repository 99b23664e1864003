/* Xizor paywall page runtime. Text functions are ports of PaywallFormat/Text (pinned by the shared
   vectors in Tests/Fixtures); the rest wires the page to the app through the bridge (docs/renderer.md). */
(function (root) {
  "use strict";
  var hasOwn = function (o, k) { return Object.prototype.hasOwnProperty.call(o, k); };

  // ---- pickLocalizedText ----
  function cmpCodePoints(a, b) {
    var x = Array.from(a), y = Array.from(b), n = Math.min(x.length, y.length);
    for (var i = 0; i < n; i++) {
      var d = x[i].codePointAt(0) - y[i].codePointAt(0);
      if (d) return d;
    }
    return x.length - y.length;
  }
  function normalizeLocale(s) { return s.toLowerCase().replace(/_/g, "-"); }
  function isSubtagPrefix(s, l) { return s.length < l.length && l.indexOf(s + "-") === 0; }
  function pickLocalizedText(text, locale, defaultLocale) {
    if (!text || typeof text !== "object") return null;
    var map = {}, keys = [];
    Object.keys(text).forEach(function (k) { if (typeof text[k] === "string") { map[k] = text[k]; keys.push(k); } });
    if (hasOwn(map, locale)) return map[locale];
    keys.sort(cmpCodePoints);
    var wanted = normalizeLocale(locale || ""), i;
    for (i = 0; i < keys.length; i++) if (normalizeLocale(keys[i]) === wanted) return map[keys[i]];
    if (wanted) {
      var best = null;
      for (i = 0; i < keys.length; i++) {
        if (isSubtagPrefix(normalizeLocale(keys[i]), wanted) && (best === null || keys[i].length > best.length)) best = keys[i];
      }
      if (best !== null) return map[best];
      for (i = 0; i < keys.length; i++) if (isSubtagPrefix(wanted, normalizeLocale(keys[i]))) return map[keys[i]];
    }
    if (hasOwn(map, defaultLocale)) return map[defaultLocale];
    return keys.length ? map[keys[0]] : null;
  }

  // ---- templates: parse, resolveText, extractVariables ----
  var SEGMENT = /^[A-Za-z0-9_-]+$/;
  function isPath(p) { return p !== "" && p.split(".").every(function (s) { return SEGMENT.test(s); }); }
  function parseTemplate(t) {
    var parts = [], lit = "", i = 0;
    while (i < t.length) {
      if (t[i] === "{" && t[i + 1] === "{") {
        var close = t.indexOf("}}", i + 2);
        if (lit) { parts.push({ lit: lit }); lit = ""; }
        if (close < 0) { parts.push({ bad: t.slice(i) }); return parts; }
        var raw = t.slice(i, close + 2), inner = t.slice(i + 2, close).replace(/^[ \t]+|[ \t]+$/g, "");
        parts.push(isPath(inner) ? { path: inner, raw: raw } : { bad: raw });
        i = close + 2;
      } else { lit += t[i]; i++; }
    }
    if (lit) parts.push({ lit: lit });
    return parts;
  }
  function lookup(path, ctx) {
    var cur = ctx, segs = path.split(".");
    for (var i = 0; i < segs.length; i++) {
      if (cur === null || typeof cur !== "object" || Array.isArray(cur) || !hasOwn(cur, segs[i])) return null;
      cur = cur[segs[i]];
    }
    if (typeof cur === "string") return cur;
    if (typeof cur === "number" && isFinite(cur)) return String(cur);
    if (typeof cur === "boolean") return cur ? "true" : "false";
    return null;
  }
  function resolveText(template, ctx, onMissing) {
    if (template.indexOf("{{") < 0) return template;
    var out = "";
    parseTemplate(template).forEach(function (p) {
      if (hasOwn(p, "lit")) out += p.lit;
      else if (hasOwn(p, "bad")) out += p.bad;
      else {
        var v = lookup(p.path, ctx);
        if (v !== null) out += v; else if (onMissing !== "empty") out += p.raw;
      }
    });
    return out;
  }
  function extractVariables(template) {
    var seen = {}, out = [];
    if (template.indexOf("{{") < 0) return out;
    parseTemplate(template).forEach(function (p) {
      if (p.path && !hasOwn(seen, p.path)) { seen[p.path] = 1; out.push(p.path); }
    });
    return out;
  }

  // ---- parseMarkdownLite ----
  function parseMarkdownLite(text) {
    var tokens = [], buf = "", i = 0, c;
    function flush() { if (buf) { tokens.push(buf); buf = ""; } }
    while (i < text.length) {
      c = text[i];
      if (c === "\\" && text[i + 1] === "*") { buf += "*"; i += 2; }
      else if (c === "*") {
        flush();
        if (text[i + 1] === "*") { tokens.push(2); i += 2; } else { tokens.push(1); i += 1; }
      } else { buf += c; i += 1; }
    }
    flush();
    var nb = 0, ni = 0;
    tokens.forEach(function (t) { if (t === 2) nb++; else if (t === 1) ni++; });
    var pb = nb - nb % 2, pi = ni - ni % 2, bold = false, italic = false, sb = 0, si = 0, spans = [];
    function emit(s) {
      if (!s) return;
      var last = spans[spans.length - 1];
      if (last && last.bold === bold && last.italic === italic) last.text += s;
      else spans.push({ text: s, bold: bold, italic: italic });
    }
    tokens.forEach(function (t) {
      if (t === 2) { sb++; if (sb <= pb) bold = !bold; else emit("**"); }
      else if (t === 1) { si++; if (si <= pi) italic = !italic; else emit("*"); }
      else emit(t);
    });
    return spans;
  }

  // ---- BlurHash (decoded into a 32x32 canvas) ----
  var B83 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~";
  function d83(s) { var v = 0; for (var i = 0; i < s.length; i++) v = v * 83 + B83.indexOf(s[i]); return v; }
  function toLinear(v) { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }
  function toSRGB(v) { v = Math.max(0, Math.min(1, v)); return Math.round((v <= 0.0031308 ? v * 12.92 : 1.055 * Math.pow(v, 1 / 2.4) - 0.055) * 255); }
  function signPow(v, e) { return (v < 0 ? -1 : 1) * Math.pow(Math.abs(v), e); }
  function decodeBlurhash(hash, w, h) {
    var size = d83(hash[0]), nx = size % 9 + 1, ny = Math.floor(size / 9) + 1;
    if (hash.length !== 4 + 2 * nx * ny) return null;
    var maxAC = (d83(hash[1]) + 1) / 166, colors = [], i, x, y;
    var dc = d83(hash.slice(2, 6));
    colors.push([toLinear(dc >> 16), toLinear((dc >> 8) & 255), toLinear(dc & 255)]);
    for (i = 1; i < nx * ny; i++) {
      var v = d83(hash.slice(4 + i * 2, 6 + i * 2));
      colors.push([signPow((Math.floor(v / 361) - 9) / 9, 2) * maxAC, signPow((Math.floor(v / 19) % 19 - 9) / 9, 2) * maxAC, signPow((v % 19 - 9) / 9, 2) * maxAC]);
    }
    var px = new Uint8ClampedArray(w * h * 4);
    for (y = 0; y < h; y++) for (x = 0; x < w; x++) {
      var r = 0, g = 0, b = 0;
      for (var j = 0; j < ny; j++) for (i = 0; i < nx; i++) {
        var basis = Math.cos(Math.PI * x * i / w) * Math.cos(Math.PI * y * j / h), c = colors[i + j * nx];
        r += c[0] * basis; g += c[1] * basis; b += c[2] * basis;
      }
      var o = 4 * (x + y * w);
      px[o] = toSRGB(r); px[o + 1] = toSRGB(g); px[o + 2] = toSRGB(b); px[o + 3] = 255;
    }
    return px;
  }

  var api = { pickLocalizedText: pickLocalizedText, resolveText: resolveText, extractVariables: extractVariables,
              parseMarkdownLite: parseMarkdownLite, decodeBlurhash: decodeBlurhash };
  root.XizorText = api;
  if (typeof document === "undefined" || !document.getElementById("xz-config")) return;

  // ======================= the page =======================
  var cfg = JSON.parse(document.getElementById("xz-config").textContent);
  var doc = document, win = root;
  var state = { products: cfg.initialProducts || {}, selected: cfg.selected, starts: {}, opened: false, closed: false, released: false };
  var openedAt = Date.now();
  var reduced = win.matchMedia && win.matchMedia("(prefers-reduced-motion: reduce)").matches;
  var $$ = function (sel, el) { return Array.prototype.slice.call((el || doc).querySelectorAll(sel)); };
  Object.keys(cfg.timerStarts || {}).forEach(function (k) { state.starts[k] = cfg.timerStarts[k]; });

  // ---- bridge: out ----
  function post(msg) {
    try {
      var w = win;
      if (w.webkit && w.webkit.messageHandlers && w.webkit.messageHandlers.xizor) w.webkit.messageHandlers.xizor.postMessage(msg);
      else if (w.ReactNativeWebView && w.ReactNativeWebView.postMessage) w.ReactNativeWebView.postMessage(JSON.stringify(msg));
      else if (w.parent && w.parent !== w) w.parent.postMessage({ xizor: msg }, "*");
    } catch (e) { /* a host that went away must not break the page */ }
  }
  function withDelivery(msg) { var d = cfg.delivery || {}; for (var k in d) if (hasOwn(d, k) && !hasOwn(msg, k)) msg[k] = d[k]; return msg; }
  function event(name, properties) { post(withDelivery({ type: "event", name: name, properties: properties || {} })); }

  // ---- texts ----
  var PRODUCT_FIELDS = ["title", "description", "price", "period", "pricePerWeek", "pricePerMonth", "introPrice", "introPeriod", "trialDays", "currency"];
  function productContext(slot) {
    var p = state.products[slot];
    if (!p || typeof p !== "object") return undefined;
    var out = {};
    PRODUCT_FIELDS.forEach(function (f) { if (hasOwn(p, f)) out[f] = p[f]; });
    if (p.introEligible === false) { delete out.introPrice; delete out.introPeriod; delete out.trialDays; }
    return out;
  }
  function textContext(scope, extra) {
    var products = {};
    cfg.products.forEach(function (p) { var c = productContext(p.slot); if (c) products[p.slot] = c; });
    var slot = scope === "$selected" ? state.selected : scope;
    var ctx = { context: cfg.context, products: products };
    if (slot && products[slot]) ctx.product = products[slot];
    if (extra) Object.keys(extra).forEach(function (k) { ctx[k] = extra[k]; });
    return ctx;
  }
  function renderText(el, template, ctx) {
    var onMissing = cfg.mode === "preview" ? "keep" : "empty", frag = doc.createDocumentFragment(), key = "";
    parseMarkdownLite(template).forEach(function (s) {
      var t = resolveText(s.text, ctx, onMissing), node = doc.createTextNode(t);
      key += (s.bold ? "b" : "") + (s.italic ? "i" : "") + ":" + t + "\u0000";
      if (s.italic) { var em = doc.createElement("em"); em.appendChild(node); node = em; }
      if (s.bold) { var st = doc.createElement("strong"); st.appendChild(node); node = st; }
      frag.appendChild(node);
    });
    if (el.__xzKey === key) return;
    el.__xzKey = key;
    var target = el.querySelector(":scope>[aria-hidden=true]") || el;
    target.textContent = "";
    target.appendChild(frag);
  }
  function refreshTexts() {
    $$("[data-t]:not([data-timer])").forEach(function (el) {
      renderText(el, el.getAttribute("data-t"), textContext(el.getAttribute("data-s") || cfg.defaultScope));
    });
    tickTimers();
  }

  // ---- selection and purchase ----
  function product(slot) {
    for (var i = 0; i < cfg.products.length; i++) if (cfg.products[i].slot === slot) return cfg.products[i];
    return null;
  }
  function storeProductId(slot) {
    var p = product(slot);
    return p ? p.storeProductId : null;
  }
  function select(slot) {
    if (!storeProductId(slot)) return;
    state.selected = slot;
    $$(".xz-option").forEach(function (o) {
      var on = o.getAttribute("data-slot") === slot;
      o.setAttribute("aria-checked", on ? "true" : "false");
      o.setAttribute("tabindex", on ? "0" : "-1");
    });
    refreshTexts();
  }
  function purchase(el) {
    var slot = el.getAttribute("data-slot");
    if (slot === "$selected") slot = state.selected;
    var id = storeProductId(slot);
    if (!id) return;
    var message = { type: "purchase", slot: slot, storeProductId: id };
    if (product(slot).storeProductIds) message.storeProductIds = product(slot).storeProductIds;
    post(message);
    event("purchase_started", { slot: slot, storeProductId: id });
  }
  function setPurchaseState(msg) {
    var s = msg.state;
    $$("[data-a=purchase]").forEach(function (b) {
      var slot = b.getAttribute("data-slot") === "$selected" ? state.selected : b.getAttribute("data-slot");
      if (msg.slot && msg.slot !== slot) return;
      if (s === "pending") b.setAttribute("aria-busy", "true"); else b.removeAttribute("aria-busy");
      b.setAttribute("data-state", s);
    });
    doc.documentElement.setAttribute("data-purchase", s);
  }

  // ---- dismissal ----
  function release() {
    if (state.released) return;
    state.released = true;
    $$("video").forEach(function (v) { try { v.pause(); v.removeAttribute("src"); v.load(); } catch (e) {} });
    var bgv = doc.querySelector(".xz-bg>video");
    if (bgv) bgv.remove();
    $$(".xz-lottie").forEach(function (l) { if (l.__xzAnim) { l.__xzAnim.destroy(); l.__xzAnim = null; } });
  }
  function closePage() {
    if (!state.closed) { state.closed = true; event("paywall_close", {}); }
    release();
    post({ type: "close" });
  }

  // ---- actions (one delegated listener) ----
  doc.addEventListener("click", function (e) {
    var opt = e.target.closest(".xz-option");
    var el = e.target.closest("[data-a]");
    if (el && !el.disabled) {
      var a = el.getAttribute("data-a");
      if (a === "open_url") { e.preventDefault(); post({ type: "open_url", url: el.getAttribute("href") }); return; }
      if (a === "close") closePage();
      else if (a === "restore") post({ type: "restore" });
      else if (a === "purchase") purchase(el);
      else if (a === "select") select(el.getAttribute("data-slot"));
      else if (a === "custom") {
        var payload = null;
        try { payload = JSON.parse(el.getAttribute("data-payload") || "null"); } catch (x) {}
        post({ type: "custom", name: el.getAttribute("data-name"), payload: payload });
      }
      return;
    }
    if (opt) select(opt.getAttribute("data-slot"));
    var dot = e.target.closest(".xz-dot");
    if (dot) { var c = dot.closest(".xz-carousel"); stopAuto(c); goTo(c, +dot.getAttribute("data-i")); }
  });
  doc.addEventListener("keydown", function (e) {
    var opt = e.target.closest && e.target.closest(".xz-option");
    if (!opt) return;
    if (e.key === " " || e.key === "Enter") { e.preventDefault(); select(opt.getAttribute("data-slot")); return; }
    var dir = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[e.key];
    if (!dir) return;
    e.preventDefault();
    var all = $$(".xz-option", opt.parentNode), next = all[(all.indexOf(opt) + dir + all.length) % all.length];
    select(next.getAttribute("data-slot"));
    next.focus();
  });

  // ---- media: lazy, only when visible; carousels only their active page ----
  function inInactiveSlide(el) {
    var slide = el.closest(".xz-slide");
    return !!slide && !slide.hasAttribute("data-active") && !!slide.closest(".xz-carousel[data-lazy]");
  }
  function loadMedia(el) {
    if (el.__xzLoaded || state.released) return;
    if (el.tagName === "IMG") {
      el.__xzLoaded = true;
      el.src = el.getAttribute("data-src");
    } else if (el.tagName === "VIDEO") {
      el.__xzLoaded = true;
      if (el.hasAttribute("data-poster")) el.poster = el.getAttribute("data-poster");
      if (el.hasAttribute("data-autoplay") && el.hasAttribute("data-src")) {
        el.src = el.getAttribute("data-src");
        el.addEventListener("playing", function () { el.classList.add("xz-loaded"); });
        var p = el.play();
        if (p && p.catch) p.catch(function () { el.muted = true; el.play().catch(function () {}); });
      } else if (el.hasAttribute("data-src")) {
        el.preload = "metadata";
        el.src = el.getAttribute("data-src");
      }
    } else if (el.classList.contains("xz-lottie")) {
      startLottie(el);
    }
  }
  function unloadMedia(el) {
    if (el.tagName !== "VIDEO" || !el.__xzLoaded) return;
    el.__xzLoaded = false;
    try { el.pause(); el.removeAttribute("src"); el.load(); } catch (e) {}
  }
  $$(".xz-media>img,.xz-bg>img").forEach(function (img) {
    function done() { img.classList.add("xz-loaded"); img.parentNode.classList.add("xz-done"); }
    if (img.complete && img.naturalWidth) done(); else img.addEventListener("load", done);
  });
  var lazyItems = $$(".xz-media>img[data-src],.xz-media>video,.xz-lottie[data-lottie]");
  var observer = "IntersectionObserver" in win ? new IntersectionObserver(function (entries) {
    entries.forEach(function (en) {
      if (en.isIntersecting && !inInactiveSlide(en.target)) { loadMedia(en.target); if (en.target.tagName !== "VIDEO") observer.unobserve(en.target); }
      else if (!en.isIntersecting && en.target.tagName === "VIDEO" && en.target.__xzLoaded) en.target.pause();
      else if (en.isIntersecting && en.target.tagName === "VIDEO" && en.target.__xzLoaded && en.target.hasAttribute("data-autoplay")) en.target.play().catch(function () {});
    });
  }, { rootMargin: "64px" }) : null;
  lazyItems.forEach(function (el) {
    if (el.hasAttribute("data-eager")) return;
    if (observer) observer.observe(el); else loadMedia(el);
  });
  $$("canvas[data-bh]").forEach(function (cv) {
    try {
      var px = decodeBlurhash(cv.getAttribute("data-bh"), 32, 32);
      if (!px) return;
      var c2 = cv.getContext("2d"), im = c2.createImageData(32, 32);
      im.data.set(px); c2.putImageData(im, 0, 0);
    } catch (e) {}
  });

  // ---- Lottie through the operator's player ----
  var playerState = 0, playerWaiting = [];
  function startLottie(el) {
    if (!cfg.lottiePlayer) return;
    if (playerState === 2) return playLottie(el);
    playerWaiting.push(el);
    if (playerState) return;
    playerState = 1;
    var s = doc.createElement("script");
    s.src = cfg.lottiePlayer; s.async = true;
    s.onload = function () { playerState = 2; playerWaiting.forEach(playLottie); playerWaiting = []; };
    s.onerror = function () { playerState = 3; };
    doc.head.appendChild(s);
  }
  function playLottie(el) {
    var L = win.lottie || win.bodymovin;
    if (!L || !L.loadAnimation || el.__xzAnim || state.released) return;
    try {
      var anim = L.loadAnimation({ container: el.querySelector(".xz-lottie-stage"), renderer: "svg",
        loop: el.hasAttribute("data-loop") && !reduced, autoplay: el.hasAttribute("data-autoplay"), path: el.getAttribute("data-lottie") });
      anim.setSpeed && anim.setSpeed(+el.getAttribute("data-speed") || 1);
      anim.addEventListener && anim.addEventListener("DOMLoaded", function () { el.classList.add("xz-ready"); });
      el.__xzAnim = anim;
    } catch (e) { /* the fallback stays */ }
  }

  // ---- carousels ----
  function slidesOf(c) { return $$(":scope>.xz-track>.xz-slide", c); }
  function setActive(c, i) {
    var slides = slidesOf(c);
    if (i === c.__xzIndex) return;
    c.__xzIndex = i;
    slides.forEach(function (s, k) {
      if (k === i) s.setAttribute("data-active", ""); else s.removeAttribute("data-active");
      if (k !== i && c.hasAttribute("data-lazy")) $$("video", s).forEach(unloadMedia);
    });
    $$(":scope>.xz-dots>.xz-dot", c).forEach(function (d, k) { if (k === i) d.setAttribute("aria-current", "true"); else d.removeAttribute("aria-current"); });
    if (c.hasAttribute("data-lazy")) $$(".xz-media>img[data-src],.xz-media>video,.xz-lottie[data-lottie]", slides[i]).forEach(loadMedia);
  }
  function goTo(c, i) {
    var track = c.querySelector(".xz-track"), n = slidesOf(c).length;
    i = (i + n) % n;
    track.scrollTo({ left: i * track.clientWidth * (getComputedStyle(track).direction === "rtl" ? -1 : 1), behavior: reduced ? "auto" : "smooth" });
    setActive(c, i);
  }
  function stopAuto(c) { if (c.__xzTimer) { clearInterval(c.__xzTimer); c.__xzTimer = null; } }
  $$(".xz-carousel").forEach(function (c) {
    var track = c.querySelector(".xz-track"), pending = 0;
    c.__xzIndex = 0;
    track.addEventListener("scroll", function () {
      clearTimeout(pending);
      pending = setTimeout(function () { setActive(c, Math.round(Math.abs(track.scrollLeft) / Math.max(1, track.clientWidth))); }, 80);
    }, { passive: true });
    ["pointerdown", "touchstart", "wheel", "keydown"].forEach(function (t) { track.addEventListener(t, function () { stopAuto(c); }, { passive: true }); });
    var ms = +c.getAttribute("data-auto");
    if (ms) c.__xzTimer = setInterval(function () {
      var n = slidesOf(c).length, next = c.__xzIndex + 1;
      if (next >= n && !c.hasAttribute("data-loop")) return stopAuto(c);
      goTo(c, next);
    }, ms);
  });

  // ---- timers ----
  function two(n) { return n < 10 ? "0" + n : String(n); }
  function formatRemaining(s, f) {
    if (f === "mm:ss") return two(Math.floor(s / 60)) + ":" + two(s % 60);
    if (f === "dd:hh:mm:ss") return two(Math.floor(s / 86400)) + ":" + two(Math.floor(s / 3600) % 24) + ":" + two(Math.floor(s / 60) % 60) + ":" + two(s % 60);
    return two(Math.floor(s / 3600)) + ":" + two(Math.floor(s / 60) % 60) + ":" + two(s % 60);
  }
  function toMillis(v) { return typeof v === "number" ? v : typeof v === "string" ? Date.parse(v) : NaN; }
  function tickTimers() {
    var now = Date.now();
    $$("[data-timer]").forEach(function (el) {
      var end;
      if (el.getAttribute("data-timer") === "deadline") end = toMillis(el.getAttribute("data-ends"));
      else {
        var start = toMillis(state.starts[el.getAttribute("data-tid")]);
        end = (isFinite(start) ? start : openedAt) + 1000 * (+el.getAttribute("data-secs") || 0);
      }
      if (!isFinite(end)) return;
      var left = Math.max(0, Math.ceil((end - now) / 1000));
      if (left === 0 && el.getAttribute("data-expire") === "hide") { el.hidden = true; return; }
      renderText(el, el.getAttribute("data-t"), textContext(el.getAttribute("data-s") || cfg.defaultScope,
        { timer: { remaining: formatRemaining(left, el.getAttribute("data-fmt")) } }));
    });
  }
  if ($$("[data-timer]").length) setInterval(tickTimers, 1000);

  // ---- bridge: in ----
  function receive(msg) {
    if (typeof msg === "string") { try { msg = JSON.parse(msg); } catch (e) { return false; } }
    if (!msg || typeof msg !== "object") return false;
    switch (msg.type) {
      case "products":
        if (msg.products && typeof msg.products === "object") state.products = msg.products;
        if (msg.timerStarts && typeof msg.timerStarts === "object") Object.keys(msg.timerStarts).forEach(function (k) { state.starts[k] = msg.timerStarts[k]; });
        if (msg.selected) select(msg.selected);
        refreshTexts();
        return true;
      case "purchase_state": setPurchaseState(msg); return true;
      case "timer_start": if (msg.nodeId) { state.starts[msg.nodeId] = msg.startedAt; tickTimers(); } return true;
      case "dismiss": if (!state.closed) { state.closed = true; event("paywall_close", {}); } release(); return true;
      default: return false;
    }
  }
  var queued = win.xizor && win.xizor.queue;
  win.xizor = { receive: receive, version: 1, state: function () { return { selected: state.selected, opened: state.opened, closed: state.closed }; } };
  win.addEventListener("message", function (e) { if (e.source === win.parent && e.data && e.data.xizor) receive(e.data.xizor); });

  // ---- lifecycle ----
  if (cfg.dismissDelayMs > 0) setTimeout(function () { $$("[data-delay]").forEach(function (b) { b.removeAttribute("data-delay"); }); }, cfg.dismissDelayMs);
  win.addEventListener("pagehide", function () { if (!state.closed) { state.closed = true; event("paywall_close", {}); } release(); });
  function afterFirstPaint(fn) { requestAnimationFrame(function () { setTimeout(fn, 0); }); }
  function opened() {
    if (state.opened || doc.visibilityState !== "visible") return;
    state.opened = true;
    event("paywall_open", {});
  }
  afterFirstPaint(function () {
    var bg = doc.querySelector(".xz-bg[data-video]");
    if (bg && !state.released) {
      var v = doc.createElement("video");
      v.muted = bg.hasAttribute("data-muted"); v.loop = bg.hasAttribute("data-loop");
      v.playsInline = true; v.setAttribute("playsinline", ""); v.setAttribute("aria-hidden", "true");
      v.addEventListener("playing", function () { v.classList.add("xz-playing"); });
      v.src = bg.getAttribute("data-video");
      bg.insertBefore(v, bg.querySelector(".xz-bg-overlay"));
      var p = v.play(); if (p && p.catch) p.catch(function () {});
    }
    $$("[data-eager]").forEach(loadMedia);
    opened();
  });
  doc.addEventListener("visibilitychange", opened);
  post(withDelivery({ type: "ready", paywallId: cfg.paywallId, schemaVersion: cfg.schemaVersion, locale: cfg.locale }));
  $$("[data-timer=duration]").forEach(function (el) {
    var id = el.getAttribute("data-tid");
    if (!hasOwn(state.starts, id)) post({ type: "timer_start", paywallId: cfg.paywallId, nodeId: id, durationSeconds: +el.getAttribute("data-secs") });
  });
  (cfg.unknownNodes || []).forEach(function (u) { event("paywall_unknown_node", { type: u.type, path: u.path, usedFallback: u.usedFallback }); });
  refreshTexts();
  if (Array.isArray(queued)) queued.forEach(receive);
})(typeof window !== "undefined" ? window : globalThis);
