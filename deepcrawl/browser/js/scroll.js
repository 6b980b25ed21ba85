// Scroll the page, and every scrolled box that holds links, to its end; true when one moved.
// A result list that renders more entries as it is scrolled (an infinite scroll, as a
// static site's client-side search results often are) then shows its next batch.
() => {
  const boxes = new Set([document.scrollingElement || document.documentElement]);
  const seen = new Set();
  for (const link of document.querySelectorAll("a[href]")) {
    for (let el = link.parentElement; el && el !== document.body; el = el.parentElement) {
      if (seen.has(el)) break;
      seen.add(el);
      const overflow = getComputedStyle(el).overflowY;
      if ((overflow === "auto" || overflow === "scroll") && el.scrollHeight > el.clientHeight) {
        boxes.add(el);
        break;
      }
    }
  }
  let moved = false;
  for (const box of boxes) {
    const before = box.scrollTop;
    box.scrollTop = box.scrollHeight;
    moved = moved || box.scrollTop !== before;
  }
  return moved;
}
