// Included by the forms' page scripts where they say `// @include css_path.js`
// (deepcrawl.browser._assets.script): a CSS selector path from <html> to an element,
// :nth-of-type where siblings share the tag, so the element can be found again.
const cssPath = (el) => {
  const parts = [];
  for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
    const p = e.parentElement;
    let seg = e.localName;
    if (p) {
      let n = 0, idx = 0;
      for (const c of p.children) if (c.localName === e.localName) { n++; if (c === e) idx = n; }
      if (n > 1) seg += `:nth-of-type(${idx})`;
    }
    parts.push(seg);
  }
  return parts.reverse().join(" > ");
};
