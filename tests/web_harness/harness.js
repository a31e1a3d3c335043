// TEST ONLY (never shipped): stands in for pywebview in a plain browser. Injected by the tests
// with Playwright's add_init_script, before the page's own scripts. It gives the page a
// window.pywebview.api whose methods POST to the harness server, and feeds the server's event
// stream (SSE) into window.metona.dispatch, the way the desktop app's ui pump does with run_js.
(() => {
  const config = window.__metonaHarness;
  if (!config || !location.pathname.startsWith(config.base)) return;
  const api = {};
  for (const name of config.methods) {
    api[name] = async (payload) => {
      const response = await fetch(`${config.base}api/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload === undefined ? null : payload),
      });
      return response.json();
    };
  }
  let backlog = [];
  function deliver(batch) {
    if (window.metona && typeof window.metona.dispatch === 'function') {
      if (backlog.length) {
        window.metona.dispatch(backlog);
        backlog = [];
      }
      window.metona.dispatch(batch);
    } else {
      backlog.push(...batch);
      setTimeout(() => deliver([]), 20);
    }
  }
  // The desktop app hands bridge.js a per-launch secret; this server checks none, any will do.
  function giveKey() {
    if (window.metona && typeof window.metona.key === 'function') window.metona.key('harness-secret-0123456789');
    else setTimeout(giveKey, 20);
  }
  const source = new EventSource(`${config.base}events`);
  source.addEventListener('ready', () => {
    // Subscribed before the page asks for anything, so no event falls between the two.
    window.pywebview = { api };
    window.dispatchEvent(new Event('pywebviewready'));
    giveKey();
  }, { once: true });
  source.onmessage = (event) => deliver(JSON.parse(event.data));
})();
