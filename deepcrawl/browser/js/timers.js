// deepcrawl timer watch: runs in every frame before the page's own scripts.
// Counts the page's pending setTimeout callbacks due within a second: while one is pending the
// page may still change (a result list appended one item per timer), and when none is, nor any
// request, a page that did not change over one poll is read at once (deepcrawl.browser.settle).
(() => {
  if (window.__dcTimersInit) return;
  Object.defineProperty(window, "__dcTimersInit", { value: true });
  const SOON_MS = 1000;
  const pending = new Set();
  const set = window.setTimeout;
  const clear = window.clearTimeout;
  window.setTimeout = function (callback, delay, ...args) {
    if (typeof callback !== "function" || Number(delay) > SOON_MS) {
      return set.call(window, callback, delay, ...args);
    }
    const id = set.call(window, function () {
      pending.delete(id);
      return callback.apply(this, arguments);
    }, delay, ...args);
    pending.add(id);
    return id;
  };
  window.clearTimeout = function (id) {
    pending.delete(id);
    return clear.call(window, id);
  };
  Object.defineProperty(window, "__dcTimers", { get: () => pending.size });
})();
