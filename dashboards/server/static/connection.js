// Vedette: say so when the page loses its server (issue 17). Bokeh keeps the page's state in a websocket
// to the server; when that socket closes (the server stopped, the laptop slept, the network dropped) the
// page no longer reacts, so a banner asks the user to reload. Installed before Bokeh opens its socket.
(function () {
  if (window.__vedetteConnectionHook) return;
  window.__vedetteConnectionHook = true;
  const Native = window.WebSocket;
  if (!Native) return;
  function banner() {
    if (document.getElementById("vedette-connection-lost")) return;
    const div = document.createElement("div");
    div.id = "vedette-connection-lost";
    div.className = "vedette-connection-lost";
    div.setAttribute("role", "alert");
    div.style.cssText = "position:fixed;top:0;left:0;right:0;z-index:100000;background:#b71c1c;color:#fff;" +
      "font:600 15px system-ui,sans-serif;padding:10px 16px;text-align:center;box-shadow:0 2px 6px rgba(0,0,0,.3)";
    div.appendChild(document.createTextNode("Connection lost \u2014 "));
    const a = document.createElement("a");
    a.href = "#";
    a.textContent = "reload";
    a.style.cssText = "color:#fff;text-decoration:underline";
    a.addEventListener("click", function (ev) { ev.preventDefault(); window.location.reload(); });
    div.appendChild(a);
    div.appendChild(document.createTextNode(" the page (the server stopped or the network dropped; saved games are kept)."));
    (document.body || document.documentElement).appendChild(div);
  }
  function Hooked(url, protocols) {
    const ws = protocols === undefined ? new Native(url) : new Native(url, protocols);
    let leaving = false;
    window.addEventListener("beforeunload", function () { leaving = true; });
    ws.addEventListener("close", function () { if (!leaving) banner(); });
    return ws;
  }
  Hooked.prototype = Native.prototype;
  for (const k of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) Hooked[k] = Native[k];
  window.WebSocket = Hooked;
})();

// Vedette: Panel's ESM components load their code with `window.importShim(url)`, the loader of the
// es-module-shims script (38 KB, parsed by every browser on every page). Our components name no import map,
// so the browser's own dynamic import() does the same job; the server leaves es-module-shims out of a page
// while no loaded component class uses an import map (dashboards/server/serve.py), and this stands in for it.
(function () {
  if (window.importShim) return;
  const load = function (url) { return import(url); };
  load.addImportMap = function (map) {
    const n = Object.keys((map && map.imports) || {}).length + Object.keys((map && map.scopes) || {}).length;
    if (n) console.warn("Vedette: an import map was given but es-module-shims is not loaded", map);
  };
  window.importShim = load;
})();
