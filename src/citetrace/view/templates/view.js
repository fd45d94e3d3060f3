(function () {
  "use strict";
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  document.querySelectorAll("time[datetime]").forEach(function (el) {
    var d = new Date(el.getAttribute("datetime"));
    if (isNaN(d.getTime())) { return; }
    el.title = el.textContent;
    el.textContent = d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
      pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
  });
  function openTarget() {  // a deep link (#call-3) or an in-page link lands on a row: open it
    var el = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (el && el.tagName === "DETAILS") { el.open = true; el.querySelector("summary").focus(); }
  }
  openTarget();
  window.addEventListener("hashchange", openTarget);
  var rows = Array.prototype.slice.call(document.querySelectorAll("[data-nav] > summary, [data-nav-row]"));
  document.addEventListener("keydown", function (ev) {
    var t = ev.target;
    if (ev.ctrlKey || ev.metaKey || ev.altKey || (t && /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName))) { return; }
    var at = rows.indexOf(document.activeElement);
    if (ev.key === "j" || ev.key === "k") {
      if (!rows.length) { return; }
      var next = ev.key === "j" ? Math.min(rows.length - 1, at + 1) : Math.max(0, at < 0 ? 0 : at - 1);
      rows[next].focus(); ev.preventDefault();
    } else if (/^[spcanu]$/.test(ev.key) && document.querySelector("[data-key]")) {
      var button = document.querySelector("[data-key='" + ev.key + "']");  // the review page: one key per label
      if (button && !button.disabled) { button.click(); ev.preventDefault(); }
    } else if (ev.key === "/") {
      var q = document.getElementById("q");
      if (q) { q.focus(); ev.preventDefault(); }
    }
  });
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.setAttribute("data-was-open", d.open ? "1" : ""); d.open = true; });
  });
  window.addEventListener("afterprint", function () {
    document.querySelectorAll("details[data-was-open]").forEach(function (d) { d.open = d.getAttribute("data-was-open") === "1"; });
  });
})();
