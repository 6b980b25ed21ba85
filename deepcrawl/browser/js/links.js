// deepcrawl: every link of the document as [url, text, domPath, rel, kind].
// kind: "a" (a/area/link rel=next|prev) or "frame" (an iframe's src). URLs are absolute, http(s)
// only, fragment removed; pure-fragment hrefs are skipped. domPath follows lxml's getpath():
// html/body/div[2]/ul/li[3]/a — an index only where the parent has several children of that tag.
() => {
  const index = new Map();
  const segOf = (el) => {
    const parent = el.parentElement;
    if (!parent) return el.localName;
    let byTag = index.get(parent);
    if (!byTag) {
      byTag = new Map();
      const counts = new Map();
      for (const child of parent.children) {
        const n = (counts.get(child.localName) || 0) + 1;
        counts.set(child.localName, n);
        byTag.set(child, n);
      }
      byTag.counts = counts;
      index.set(parent, byTag);
    }
    return byTag.counts.get(el.localName) > 1 ? `${el.localName}[${byTag.get(el)}]` : el.localName;
  };
  const paths = new Map();
  const pathOf = (el) => {
    let path = paths.get(el);
    if (path !== undefined) return path;
    const parent = el.parentElement;
    path = parent ? `${pathOf(parent)}/${segOf(el)}` : segOf(el);
    paths.set(el, path);
    return path;
  };
  window.__dcPathOf = pathOf;
  const collapse = (s) => (s || "").replace(/\s+/g, " ").trim();
  const textOf = (el) => {
    let text = collapse(el.textContent);
    if (!text) {
      const img = el.querySelector ? el.querySelector("img[alt]") : null;
      text = collapse(
        (img && img.getAttribute("alt")) || el.getAttribute("alt") || el.getAttribute("title") ||
          el.getAttribute("aria-label"),
      );
    }
    return text.slice(0, 500);
  };
  // The URL the browser resolved for the element (a.href, iframe.src) when it has one: parsed
  // with the document's encoding, as a click requests it (new URL() encodes a query in UTF-8
  // whatever the page's encoding); an SVG link has none and is resolved here.
  const absolute = (raw, resolved) => {
    raw = (raw || "").trim();
    if (!raw || raw.startsWith("#")) return null;
    let url;
    try {
      url = typeof resolved === "string" && resolved ? new URL(resolved) : new URL(raw, document.baseURI);
    } catch (e) { return null; }
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    url.hash = "";
    return url.href;
  };
  const out = [];
  for (const el of document.querySelectorAll("a[href], area[href], link[href]")) {
    const rel = collapse(el.getAttribute("rel")).toLowerCase();
    if (el.localName === "link" && !/(^|\s)(next|prev|previous)(\s|$)/.test(rel)) continue;
    const url = absolute(el.getAttribute("href"), el.href);
    if (url) out.push([url, el.localName === "link" ? "" : textOf(el), pathOf(el), rel, "a"]);
  }
  for (const el of document.querySelectorAll("iframe[src], frame[src]")) {
    const url = absolute(el.getAttribute("src"), el.src);
    if (url) out.push([url, collapse(el.getAttribute("title")), pathOf(el), "", "frame"]);
  }
  for (const entry of window.__dcNav || []) {
    if (entry[0] === "open" && /^https?:/.test(entry[1])) out.push([entry[1].split("#")[0], "", "", "", "open"]);
  }
  return out;
}
