// deepcrawl form discovery in the live DOM. Returns {forms: [...], wantListeners: bool}: plain
// objects shaped like deepcrawl.forms.model.Form (built_by_script is decided in Python).
// Elements holding listeners found through CDP are in window.__dcL (mouse) / __dcK (keys).
(args) => {
  const collapse = (s) => (s || "").replace(/\s+/g, " ").trim();
  const listened = new Set(window.__dcL || []);
  const keyed = new Set(window.__dcK || []);
  const HANDLERS = ["onclick", "onmousedown", "onmouseup", "onpointerdown", "onpointerup"];
  const hasHandler = (el) =>
    listened.has(el) || HANDLERS.some((h) => el.hasAttribute(h) || typeof el[h] === "function");
  const hasKeyHandler = (el) => {
    for (let e = el; e && e !== document.body; e = e.parentElement) {
      if (keyed.has(e) || ["onkeydown", "onkeyup", "onkeypress"].some((h) => e.hasAttribute(h) || typeof e[h] === "function")) return true;
    }
    return false;
  };
  const css = (v) => '"' + String(v).replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
  const count = (sel) => { try { return document.querySelectorAll(sel).length; } catch (e) { return -1; } };
  // @include css_path.js
  const SKIP = new Set(["script", "style", "noscript", "template", "option", "optgroup", "select",
    "textarea", "datalist"]);
  const ownText = (el) => {
    const parts = [];
    const walk = (node) => {
      for (const child of node.childNodes) {
        if (child.nodeType === 3) parts.push(child.nodeValue);
        else if (child.nodeType === 1 && !SKIP.has(child.localName)) walk(child);
      }
    };
    walk(el);
    return collapse(parts.join(" "));
  };
  const shown = (el) => {
    if (el.localName === "input" && (el.getAttribute("type") || "").toLowerCase() === "hidden") return false;
    if (el.checkVisibility) return el.checkVisibility({ visibilityProperty: true });
    return !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  };
  const visibleText = (root, limit) => {
    const parts = [];
    let size = 0;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => {
        if (n.nodeType === 1) {
          if (SKIP.has(n.localName)) return NodeFilter.FILTER_REJECT;
          return NodeFilter.FILTER_SKIP;
        }
        return NodeFilter.FILTER_ACCEPT;
      },
    });
    for (let n = walker.nextNode(); n && size < limit; n = walker.nextNode()) {
      const t = n.nodeValue;
      if (t && t.trim() && n.parentElement && shown(n.parentElement)) { parts.push(t); size += t.length; }
    }
    for (const b of root.querySelectorAll("input[type=submit], input[type=button], input[type=reset]")) {
      if (b.value) parts.push(b.value);
    }
    return collapse(parts.join(" ")).slice(0, limit);
  };
  const contextOf = (el, limit) => {
    const parts = [];
    let size = 0;
    const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
    walker.currentNode = el;
    for (let n = walker.previousNode(); n && size < limit; n = walker.previousNode()) {
      const p = n.parentElement;
      if (!p || SKIP.has(p.localName) || !n.nodeValue.trim()) continue;
      if (el.contains(n)) continue;
      if (!shown(p)) continue;
      parts.push(n.nodeValue); size += n.nodeValue.length;
    }
    const text = collapse(parts.reverse().join(" "));
    return text.slice(Math.max(0, text.length - limit));
  };
  const labelOf = (el) => {
    for (const label of el.labels || []) {
      const t = ownText(label);
      if (t) return t;
    }
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const t = collapse(by.split(/\s+/).map((id) => { const x = document.getElementById(id); return x ? ownText(x) : ""; }).join(" "));
      if (t) return t;
    }
    return collapse(el.getAttribute("aria-label") || el.getAttribute("title") || "");
  };
  const formLocator = (form, names) => {
    const id = form.getAttribute("id"), name = form.getAttribute("name");
    if (id && count(`form[id=${css(id)}]`) === 1) return `form[id=${css(id)}]`;
    if (name && count(`form[name=${css(name)}]`) === 1) return `form[name=${css(name)}]`;
    let sel = "form";
    for (const n of names) {
      sel += `:has([name=${css(n)}])`;
      if (count(sel) === 1) return sel;
    }
    const action = form.getAttribute("action");
    if (action !== null && count(`${sel}[action=${css(action)}]`) === 1) return `${sel}[action=${css(action)}]`;
    return cssPath(form);
  };
  const fieldLocator = (formLoc, el) => {
    const id = el.getAttribute("id");
    if (id && count(`[id=${css(id)}]`) === 1) return `[id=${css(id)}]`;
    const name = el.getAttribute("name");
    if (name) {
      let sel = `${formLoc} ${el.localName}[name=${css(name)}]`.trim();
      if (count(sel) === 1) return sel;
      const value = el.getAttribute("value");
      if (value !== null) {
        sel += `[value=${css(value)}]`;
        if (count(sel) === 1) return sel;
      }
    }
    return cssPath(el);
  };
  const TEXTUAL = new Set(["text", "search", ""]);
  const inputType = (el) => (el.getAttribute("type") || "").trim().toLowerCase() || "text";
  const field = (el, formLoc) => {
    const tag = el.localName;
    const f = {
      tag: tag === "select" ? "select" : tag === "textarea" ? "textarea" : "input",
      type: "text", name: el.getAttribute("name"), id: el.getAttribute("id"), value: "",
      options: [], checked: false, required: !!el.required,
      placeholder: collapse(el.getAttribute("placeholder")), label: labelOf(el),
      visible: shown(el), locator: fieldLocator(formLoc, el),
    };
    if (tag === "select") {
      f.type = el.multiple ? "select-multiple" : "select";
      f.options = Array.from(el.options).map((o) => ({ value: o.value, text: collapse(o.text), selected: o.selected }));
      f.value = el.value || "";
    } else if (tag === "textarea") {
      f.type = "textarea";
      f.value = el.value || "";
    } else {
      f.type = inputType(el);
      f.value = f.type === "checkbox" || f.type === "radio" ? el.getAttribute("value") || "" : el.value || "";
      f.checked = !!el.checked;
    }
    return f;
  };
  const controls = (elements, formLoc, inForm) => {
    const fields = [], submits = [];
    for (const el of elements) {
      const tag = el.localName;
      const type = (el.getAttribute("type") || "").trim().toLowerCase();
      const name = el.getAttribute("name");
      if (tag === "button" || (tag === "input" && ["submit", "image", "button", "reset"].includes(type))) {
        const kindAttr = tag === "button" ? type || "submit" : type;
        const locator = fieldLocator(formLoc, el);
        const text = tag === "button"
          ? ownText(el) || collapse(el.getAttribute("value"))
          : collapse(el.getAttribute("value") || el.getAttribute("alt") || el.getAttribute("title"));
        const value = el.getAttribute("value") || "";
        if (kindAttr === "submit" || kindAttr === "image") {
          const kind = !inForm ? "js" : kindAttr === "image" ? "image" : tag === "button" ? "button" : "input";
          submits.push({ kind, name, value, text, locator });
        } else if (kindAttr === "button" && (hasHandler(el) || !inForm)) {
          submits.push({ kind: "js", name, value, text, locator });
        } else if (tag === "button") {
          fields.push({ tag: "button", type: kindAttr, name, id: el.getAttribute("id"), value, options: [],
            checked: false, required: false, placeholder: "", label: text, visible: shown(el), locator });
        } else {
          fields.push(field(el, formLoc));
        }
        continue;
      }
      fields.push(field(el, formLoc));
    }
    return { fields, submits };
  };
  const FIELD_SEL = "input, select, textarea, button";
  const jsSubmits = (root, exclude, formLoc) => {
    const out = [];
    for (const el of root.querySelectorAll("a, div, span, img, li, i, td, p, label")) {
      if (exclude.has(el) || el.closest("button")) continue;
      const role = (el.getAttribute("role") || "").toLowerCase();
      const href = (el.getAttribute("href") || "").trim().toLowerCase();
      if (hasHandler(el) || role === "button" || href.startsWith("javascript:")) {
        out.push({ kind: "js", name: null, value: "", locator: fieldLocator(formLoc, el),
          text: collapse(el.textContent) || collapse(el.getAttribute("title") || el.getAttribute("alt")) });
      }
    }
    return out;
  };
  const getElements = Object.getOwnPropertyDescriptor(HTMLFormElement.prototype, "elements").get;
  const forms = [];
  let wantListeners = false;
  const allForms = Array.from(document.querySelectorAll("form"));
  allForms.forEach((form) => {
    const elements = Array.from(getElements.call(form)).filter((e) => e.matches(FIELD_SEL));
    for (const img of form.querySelectorAll("input[type=image]")) if (!elements.includes(img)) elements.push(img);
    elements.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
    const names = elements.map((e) => e.getAttribute("name")).filter(Boolean);
    const loc = formLocator(form, names);
    const { fields, submits } = controls(elements, loc, true);
    const js = jsSubmits(form, new Set(elements), loc);
    submits.push(...js);
    if (!submits.length) wantListeners = true;
    const firstText = fields.find((f) => f.tag === "input" && TEXTUAL.has(f.type));
    if (!submits.length && firstText) submits.push({ kind: "enter", name: null, value: "", text: "", locator: firstText.locator });
    const action = (form.getAttribute("action") || "").trim();
    let resolved = args.pageUrl;
    if (action && !action.startsWith("#")) {
      try { resolved = new URL(action, document.baseURI).href; } catch (e) { resolved = args.pageUrl; }
    }
    const method = (form.getAttribute("method") || "get").trim().toUpperCase() === "POST" ? "POST" : "GET";
    forms.push({
      page_url: args.pageUrl, action: resolved, method,
      enctype: (form.getAttribute("enctype") || "application/x-www-form-urlencoded").toLowerCase(),
      id: form.getAttribute("id") || null, name: form.getAttribute("name") || null,
      classes: Array.from(form.classList), locator: loc, fields, submits,
      text: visibleText(form, 2000), context: contextOf(form, 200), formless: false,
    });
  });
  // Formless groups: text inputs outside any form, grouped by the nearest ancestor that also
  // holds something clickable; kept when a script can submit them (a control or a key handler).
  const groups = new Map();
  for (const input of document.querySelectorAll("input, textarea")) {
    if (input.form || input.closest("form")) continue;
    if (input.localName === "input" && !TEXTUAL.has((input.getAttribute("type") || "").trim().toLowerCase())) continue;
    wantListeners = true;
    let container = input.parentElement;
    for (let e = input.parentElement, depth = 0; e && depth < 6; e = e.parentElement, depth++) {
      container = e;
      if (e === document.body) break;
      const clickable = Array.from(e.querySelectorAll("button, input[type=submit], input[type=button], input[type=image], a, div, span, img, i, [role=button]"))
        .some((c) => c !== input && !c.closest("form") && (c.matches("button, input") || hasHandler(c) || (c.getAttribute("role") || "") === "button" || (c.getAttribute("href") || "").trim().toLowerCase().startsWith("javascript:")));
      if (clickable) break;
    }
    if (!groups.has(container)) groups.set(container, []);
    groups.get(container).push(input);
  }
  for (const [container, inputs] of groups) {
    const elements = Array.from(container.querySelectorAll(FIELD_SEL)).filter((e) => !e.form && !e.closest("form"));
    const first = elements[0] || inputs[0];
    const names = elements.map((e) => e.getAttribute("name")).filter(Boolean);
    let loc = cssPath(container);
    const { fields, submits } = controls(elements, "", false);
    submits.push(...jsSubmits(container, new Set(elements), ""));
    if (inputs.some(hasKeyHandler)) submits.push({ kind: "enter", name: null, value: "", text: "", locator: fieldLocator("", inputs[0]) });
    if (!submits.length) continue;
    forms.push({
      page_url: args.pageUrl, action: args.pageUrl, method: "GET",
      enctype: "application/x-www-form-urlencoded", id: null, name: null, classes: [],
      locator: loc, fields, submits, text: visibleText(container, 2000),
      context: contextOf(container, 200), formless: true,
    });
    void first; void names;
  }
  return { forms, wantListeners };
}
