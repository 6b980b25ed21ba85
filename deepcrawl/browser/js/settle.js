// deepcrawl settle watch: [DOM changes, readyState, fresh, observed, scripts, short timers].
// The first call on a document installs a MutationObserver counting every change to it
// (elements, text, attributes) in window.__dcMut, and says so (fresh: a new document);
// deepcrawl.browser.settle compares the count between looks to tell when the page is still.
() => {
  const fresh = !window.__dcMutObs;
  if (fresh && document.documentElement) {
    window.__dcMut = 0;
    window.__dcMutObs = new MutationObserver((records) => { window.__dcMut += records.length; });
    window.__dcMutObs.observe(document.documentElement, { childList: true, subtree: true, characterData: true, attributes: true });
  }
  return [
    window.__dcMut || 0,
    document.readyState,
    fresh,
    !!window.__dcMutObs,
    document.scripts.length,
    window.__dcTimers || 0,
  ];
}
