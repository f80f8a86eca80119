"use strict";
(function () {
  document.querySelectorAll("button.copy").forEach(function (button) {
    button.addEventListener("click", function () {
      var code = document.getElementById(button.dataset.target);
      var done = function () { button.dataset.label = button.dataset.label || button.textContent; button.textContent = "✓"; setTimeout(function () { button.textContent = button.dataset.label; }, 1500); };
      if (navigator.clipboard && window.isSecureContext) { navigator.clipboard.writeText(code.textContent).then(done, done); }
      else { var area = document.createElement("textarea"); area.value = code.textContent; document.body.appendChild(area); area.select(); try { document.execCommand("copy"); } catch (e) {} area.remove(); done(); }
      button.dataset.copied = code.textContent;
    });
  });
  document.querySelectorAll(".sim").forEach(function (box) {
    var out = box.querySelector(".sim-out"), run = box.querySelector(".sim-run"), timer = null;
    var words = (box.dataset.text || "The quick brown fox jumps over the lazy dog while the model streams tokens at the estimated rate .").split(" ");
    run.addEventListener("click", function () {
      clearInterval(timer); out.textContent = ""; var tps = parseFloat(box.dataset.tps), ttft = parseFloat(box.dataset.ttft) * 1000, n = 0;
      box.dataset.state = "waiting";
      setTimeout(function () {
        box.dataset.state = "streaming"; var started = performance.now();
        timer = setInterval(function () {
          var due = Math.floor((performance.now() - started) / 1000 * tps);
          while (n < due && n < 200) { out.textContent += words[n % words.length] + " "; n++; }
          if (n >= 200) { clearInterval(timer); box.dataset.state = "done"; }
        }, 50);
      }, Math.min(ttft, 10000));
    });
  });
  var search = document.getElementById("search");
  if (search) {
    var rows = Array.prototype.slice.call(document.querySelectorAll("[data-name]"));
    var filter = function () {
      var q = search.value.trim().toLowerCase(), kind = document.querySelector("input[name=kind]:checked");
      var k = kind ? kind.value : "all", shown = 0;
      rows.forEach(function (row) {
        var ok = (!q || row.dataset.name.indexOf(q) >= 0) && (k === "all" || row.dataset.kind === k);
        row.hidden = !ok; if (ok) shown++;
      });
      var count = document.getElementById("search-count"); if (count) count.textContent = shown;
    };
    search.addEventListener("input", filter);
    document.querySelectorAll("input[name=kind]").forEach(function (r) { r.addEventListener("change", filter); });
  }
})();
