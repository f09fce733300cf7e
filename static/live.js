// Live regions: an element with data-live-url is redrawn from that URL every data-live-every
// seconds, when and only when the answer changed. Each poll is a conditional GET (the answer is
// stored with "no-cache", so the browser asks with If-None-Match and an unchanged answer is a 304
// with no body); the element is redrawn only when the ETag differs from the one drawn. While a
// control inside has the focus (a choice half made), the redraw waits for it to leave. When the
// server can't be reached (a restart), the element with the id data-live-status is shown and the
// polls go on; the next answer hides it. No inline script or style: the page's CSP allows this file.
(function () {
  "use strict";

  function live(element) {
    var url = element.getAttribute("data-live-url");
    var every = Math.max(1, parseFloat(element.getAttribute("data-live-every") || "5")) * 1000;
    var etag = element.getAttribute("data-live-etag") || null;
    var status = document.getElementById(element.getAttribute("data-live-status") || "");
    var pending = null;

    function connected(ok) {
      if (status) status.hidden = ok;
      element.classList.toggle("stale", !ok);
    }
    function busy() {
      var focused = document.activeElement;
      return focused && focused !== document.body && element.contains(focused);
    }
    function draw() {
      if (pending === null || busy()) return;
      element.innerHTML = pending;
      pending = null;
      element.dispatchEvent(new CustomEvent("live:drawn", { bubbles: true }));
    }
    function poll() {
      fetch(url, { cache: "no-cache", credentials: "same-origin" })
        .then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          connected(true);
          var tag = response.headers.get("ETag");
          if (tag && tag === etag) return null;
          etag = tag;
          return response.text();
        })
        .then(function (html) {
          if (typeof html === "string") pending = html;
          draw();
        })
        .catch(function () { connected(false); })
        .then(function () { window.setTimeout(poll, every); });
    }
    element.addEventListener("focusout", function () { window.setTimeout(draw, 0); });
    window.setTimeout(poll, every);
  }

  Array.prototype.forEach.call(document.querySelectorAll("[data-live-url]"), live);
})();
