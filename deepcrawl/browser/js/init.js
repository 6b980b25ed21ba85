// deepcrawl init script: runs in every frame before the page's own scripts.
// - alert/confirm/prompt/print never block (confirm answers "no": the safe choice);
// - window.open never opens a window: the URL is recorded in __dcNav and null returned;
// - while the top window has __dcProbing set (JS link probing), every navigation the page starts
//   is recorded and cancelled through the Navigation API, so the page stays where it is;
// - once the top window has __dcProbed set (probing touched it), no beacon and no keepalive
//   fetch leaves: such a request may outlive its page (sent as it unloads, by a handler a
//   click armed), and then no route of the crawler sees it.
(() => {
  if (window.__dcInit) return;
  Object.defineProperty(window, "__dcInit", { value: true });
  const top = (() => {
    try { return window.top.__dcInit ? window.top : window; } catch (e) { return window; }
  })();
  const log = (entry) => {
    try { (top.__dcNav || (top.__dcNav = [])).push(entry); } catch (e) { /* cross-origin */ }
  };
  window.__dcNav = window.__dcNav || [];
  window.alert = () => undefined;
  window.confirm = () => false;
  window.prompt = () => null;
  window.print = () => undefined;
  window.open = function (url) {
    try {
      if (url) log(["open", new URL(String(url), document.baseURI).href]);
    } catch (e) { /* unparsable URL */ }
    return null;
  };
  const probed = () => {
    try { return !!top.__dcProbed; } catch (e) { return false; }
  };
  const beacon = Navigator.prototype.sendBeacon;
  if (beacon) {
    Navigator.prototype.sendBeacon = function (...args) {
      return probed() ? false : beacon.apply(this, args);
    };
  }
  const send = window.fetch;
  if (send) {
    window.fetch = function (input, init) {
      const keep = (init && init.keepalive) || (input instanceof Request && input.keepalive);
      if (keep && probed()) return Promise.reject(new TypeError("no keepalive request here"));
      return send.apply(this, arguments);
    };
  }
  if (window.navigation && window.navigation.addEventListener) {
    window.navigation.addEventListener("navigate", (event) => {
      let probing = false;
      try { probing = !!top.__dcProbing; } catch (e) { probing = false; }
      if (!probing) return;
      try {
        log(["navigate", event.destination.url, event.navigationType, !!event.formData]);
      } catch (e) { /* no destination */ }
      if (event.cancelable) event.preventDefault();
    });
  }
})();
