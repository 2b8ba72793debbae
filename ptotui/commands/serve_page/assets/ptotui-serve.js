// Loaded before textual-serve's textual.js. No inline script: the page's CSP allows only files.
"use strict";

// When the server closes the session with a reason ("All 4 sessions are in use", "ptotui
// serve stopped"), say it instead of textual-serve's bare "Session ended.".
(function () {
  const NativeWebSocket = window.WebSocket;
  class ExplainedWebSocket extends NativeWebSocket {
    constructor(url, protocols) {
      super(url, protocols);
      this.addEventListener("close", (event) => {
        const message = document.querySelector(".closed-dialog .message");
        if (message && event.reason) {
          message.textContent = event.reason;
        }
      });
    }
  }
  window.WebSocket = ExplainedWebSocket;
})();

// textual-serve's template calls refresh() from inline onclick handlers; the same, from here.
document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("button.restart")) {
    button.addEventListener("click", () => {
      const url = new URL(window.location.href);
      url.searchParams.delete("delay");
      window.location.href = url.pathname + "?" + url.searchParams.toString();
    });
  }
});
