// deepcrawl result-page snapshot: {title, blocks, controls}.
// blocks: short visible texts (messages, headings, counts) in document order; controls: visible,
// enabled clickable elements without a real href (buttons, role=button, javascript: links) with
// a short text, as [cssPath, text]; inside a form only the buttons that do not submit it.
() => {
  const collapse = (s) => (s || "").replace(/\s+/g, " ").trim();
  const shown = (el) => {
    if (el.checkVisibility) return el.checkVisibility({ visibilityProperty: true });
    return !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  };
  // @include css_path.js
  const blocks = [];
  const seen = new Set();
  const body = document.body;
  if (body) {
    for (const el of body.querySelectorAll("p, div, span, li, td, h1, h2, h3, h4, strong, em, section")) {
      const text = collapse(el.textContent);
      if (!text || text.length > 240 || seen.has(text)) continue;
      if (el.closest("script, style, noscript, template")) continue;
      if (!shown(el)) continue;
      seen.add(text);
      blocks.push(text);
      if (blocks.length >= 400) break;
    }
  }
  const controls = [];
  if (body) {
    const sel = "button, input[type=button], input[type=submit], [role=button], a:not([href]), a[href^='javascript:'], [onclick]";
    for (const el of body.querySelectorAll(sel)) {
      // a form's own buttons submit it (the result form's turns, read apart); a type=button
      // button inside a form submits nothing: it is a script's control, as outside one
      const scripted = el.localName === "button" ? el.type === "button" : el.localName === "input" && el.type === "button";
      if ((el.form || el.closest("form")) && !scripted) continue;
      if (el.disabled || el.hidden || !shown(el)) continue;
      const text = collapse(el.localName === "input" ? el.value : el.textContent) ||
        collapse(el.getAttribute("aria-label") || el.getAttribute("title"));
      if (!text || text.length > 40) continue;
      controls.push([cssPath(el), text]);
      if (controls.length >= 100) break;
    }
  }
  return { title: collapse(document.title), blocks, controls };
}
