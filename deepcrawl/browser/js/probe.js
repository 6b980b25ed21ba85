// deepcrawl JS link probing helpers, installed once per document as window.__dcProbe.
// candidates(): clickable elements that are not plain links (on* handler attributes or
//   properties, listeners found through CDP and marked in window.__dcL, ARIA roles, buttons,
//   the top element of a cursor:pointer subtree), minus form fields; each with its words (text
//   and attributes), which the safety rule judges in Python before anything is touched.
// point(i): scroll candidate i into view; its centre if a real mouse would hit it, else null.
// synthetic(i, kind): dispatch hover or click events directly (hidden or covered elements).
// signature(): a hash of the body's markup, to tell DOM states apart.
(() => {
  if (window.__dcProbe) return;
  const collapse = (s) => (s || "").replace(/\s+/g, " ").trim();
  const HANDLERS = ["onclick", "onmousedown", "onmouseup", "onmouseover", "onmouseenter",
    "ondblclick", "onpointerdown", "onpointerup"];
  const ROLES = new Set(["button", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "tab",
    "treeitem", "option", "switch"]);
  const SKIP_TAGS = new Set(["html", "body", "head", "script", "style", "input", "select",
    "textarea", "option", "optgroup", "label", "iframe", "frame", "form", "datalist", "template",
    "noscript", "svg", "path"]);
  const hasHandler = (el) =>
    HANDLERS.some((h) => el.hasAttribute(h) || typeof el[h] === "function");
  const plainLink = (el) => {
    if (el.localName !== "a" && el.localName !== "area") return false;
    const href = (el.getAttribute("href") || "").trim().toLowerCase();
    return href !== "" && !href.startsWith("#") && !href.startsWith("javascript:");
  };
  const words = (el) => {
    const parts = [collapse(el.textContent).slice(0, 300)];
    for (const attr of el.attributes) {
      if (attr.name === "style") continue;
      parts.push(attr.name.startsWith("data-") ? attr.name.slice(5) : "", attr.value);
    }
    if (el.value && typeof el.value === "string") parts.push(el.value);
    return collapse(parts.join(" ")).slice(0, 2000);
  };
  const submitsForm = (el) => {
    const tag = el.localName;
    const type = (el.getAttribute("type") || "").toLowerCase();
    if (tag === "button") return !!el.closest("form") && (type === "" || type === "submit" || type === "reset");
    return false;
  };
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    const s = getComputedStyle(el);
    return s.visibility !== "hidden" && s.display !== "none";
  };
  const probe = {
    cands: [],
    ids: new Map(),
    pathOf(el) {
      const seg = (e) => {
        const p = e.parentElement;
        if (!p) return e.localName;
        let n = 0, idx = 0;
        for (const c of p.children) if (c.localName === e.localName) { n++; if (c === e) idx = n; }
        return n > 1 ? `${e.localName}[${idx}]` : e.localName;
      };
      const parts = [];
      for (let e = el; e; e = e.parentElement) parts.push(seg(e));
      return parts.reverse().join("/");
    },
    candidates(args) {
      const found = new Map();
      const add = (el, reason) => {
        if (!el || found.has(el) || SKIP_TAGS.has(el.localName)) return;
        found.set(el, reason);
      };
      const all = document.body ? document.body.querySelectorAll("*") : [];
      const listened = new Set(window.__dcL || []);
      const hovered = new Set(window.__dcH || []);
      const HOVER = ["onmouseover", "onmouseenter", "onpointerover", "onpointerenter"];
      // Hover only where it may do something: a hover handler, or handlers we cannot see.
      const wantsHover = (el, reason) =>
        hovered.has(el) || HOVER.some((h) => el.hasAttribute(h) || typeof el[h] === "function") ||
        reason === "role" || reason === "pointer";
      const checkCursor = all.length <= (args.maxCursorScan || 4000);
      for (const el of all) {
        if (SKIP_TAGS.has(el.localName)) continue;
        if (hasHandler(el)) add(el, "handler");
        else if (listened.has(el)) add(el, "listener");
        else if (ROLES.has((el.getAttribute("role") || "").toLowerCase())) add(el, "role");
        else if (el.localName === "button") add(el, "button");
        else if (checkCursor && !plainLink(el) && !el.closest("a[href],button")) {
          if (getComputedStyle(el).cursor === "pointer") {
            const parent = el.parentElement;
            if (!parent || getComputedStyle(parent).cursor !== "pointer") add(el, "pointer");
          }
        }
      }
      const out = [];
      for (const [el, reason] of found) {
        if (plainLink(el) && reason !== "handler" && reason !== "listener") continue;
        if (el.disabled || submitsForm(el)) continue;
        if (reason === "listener" || reason === "pointer") {
          if (el.querySelectorAll("*").length > 40) continue; // a delegating container, not a control
        }
        const path = this.pathOf(el);
        const text = collapse(el.textContent).slice(0, 80);
        let i = this.ids.get(el);
        if (i === undefined) { i = this.cands.length; this.cands.push(el); this.ids.set(el, i); }
        const key = `${path}|${text}|${this.hash(el.outerHTML.slice(0, 4000))}`;
        out.push({ i, key, path, text, words: words(el), reason, hover: wantsHover(el, reason),
          visible: visible(el) });
        if (out.length >= (args.max || 60) * 3) break;
      }
      return out;
    },
    point(i) {
      const el = this.cands[i];
      if (!el || !el.isConnected) return "gone";
      if (!visible(el)) return null;
      el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      const r = el.getBoundingClientRect();
      const x = r.left + Math.min(r.width / 2, 20), y = r.top + r.height / 2;
      const hit = document.elementFromPoint(x, y);
      return hit && (hit === el || el.contains(hit)) ? [x, y] : null;
    },
    synthetic(i, kind) {
      const el = this.cands[i];
      if (!el || !el.isConnected) return false;
      const fire = (type, Ctor) =>
        el.dispatchEvent(new Ctor(type, { bubbles: type !== "mouseenter", cancelable: true, view: window }));
      if (kind === "hover") {
        fire("pointerover", PointerEvent); fire("mouseover", MouseEvent); fire("mouseenter", MouseEvent);
      } else {
        fire("pointerdown", PointerEvent); fire("mousedown", MouseEvent);
        fire("pointerup", PointerEvent); fire("mouseup", MouseEvent);
        el.click();
      }
      return true;
    },
    hash(text) {
      let h = 2166136261;
      for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 16777619); }
      return `${text.length}:${(h >>> 0).toString(16)}`;
    },
    signature() {
      return this.hash(document.body ? document.body.innerHTML : "");
    },
    drain() {
      const nav = (window.__dcNav || []).splice(0);
      return nav;
    },
    // After an action: wait a frame, then report navigations, the DOM state, the links.
    after(withLinks) {
      return new Promise((resolve) => requestAnimationFrame(() => resolve({
        nav: this.drain(),
        sig: this.signature(),
        url: location.href,
        links: withLinks && window.__dcLinks ? window.__dcLinks() : [],
      })));
    },
  };
  Object.defineProperty(window, "__dcProbe", { value: probe });
})();
