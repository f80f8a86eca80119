"use strict";
// The home page: the list groups follow the search box, and the finder (hidden without script) answers
// "what runs on my hardware?" and "how do I run this model?" from api/v1/finder.json. Every figure is read from
// that file (the pair and model pages' own numbers); only the visitor's own VRAM and RAM are compared here, by
// the fit rule the file publishes.
(function () {
  var search = document.getElementById("search");
  var groups = Array.prototype.slice.call(document.querySelectorAll("details.group"));
  if (search) {
    document.getElementById("search-form").addEventListener("submit", function (e) { e.preventDefault(); });
    var follow = function () {
      var q = search.value.trim();
      groups.forEach(function (group) {
        var shown = group.querySelectorAll("li[data-name]:not([hidden])").length;
        group.hidden = shown === 0;
        group.open = q !== "" && shown > 0;
      });
    };
    search.addEventListener("input", function () { setTimeout(follow, 0); });
    document.querySelectorAll("input[name=kind]").forEach(function (r) { r.addEventListener("change", function () { setTimeout(follow, 0); }); });
  }

  var box = document.getElementById("finder");
  if (!box || !window.fetch) return;
  var L = JSON.parse(box.dataset.labels), lang = box.dataset.lang, root = box.dataset.root;
  var out = document.getElementById("finder-out"), count = document.getElementById("finder-count");
  var GIB = 1073741824;

  var formats = {};  // one Intl formatter per digit count: building one costs far more than using it
  function num(value, digits) {
    var f = formats[digits] || (formats[digits] = new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits }));
    return f.format(value);
  }
  function sig(value) { return num(value, Math.max(0, 2 - Math.floor(Math.log10(Math.abs(value))))); }
  function gib(bytes) { return num(bytes / GIB, 2) + "\u00a0GiB"; }
  function usd(value, digits) {
    var text = num(value, digits === undefined ? 2 : digits);
    return lang === "de" ? text + "\u00a0$" : "$" + text;
  }
  function fill(template, values) {
    return template.replace(/%\((\w+)\)s/g, function (_, name) { return values[name]; });
  }
  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }
  function link(href, text) { var a = el("a", text); a.href = root + href; return a; }
  function checked(name) { return document.querySelector("input[name=" + name + "]:checked").value; }

  function start(d) {
    var gpuById = {}, modelById = {};
    d.gpus.forEach(function (g) { gpuById[g.id] = g; });
    d.models.forEach(function (m) { modelById[m.id] = m; });
    function pairPath(m, g) { return d.pair_path_template.replace("{language}", lang).replace("{model}", m).replace("{gpu}", g); }
    function modelPath(m) { return d.model_path_template.replace("{language}", lang).replace("{model}", m); }
    function gpuPath(g) { return d.gpu_path_template.replace("{language}", lang).replace("{gpu}", g); }

    function table(rows, withSpeed) {
      var t = el("table", null, "finder-table"), head = el("tr"), body = el("tbody");
      [L.model, L.quant, L.memory, L.decode, L.context, L.fit].forEach(function (label, i) {
        var th = el("th", label); th.scope = "col"; if (i > 1 && i < 5) th.className = "num"; head.appendChild(th);
      });
      var thead = el("thead"); thead.appendChild(head); t.appendChild(thead);
      rows.forEach(function (r) {
        var tr = el("tr"), name = el("th"); name.scope = "row";
        name.appendChild(link(r.href, r.model.name)); tr.appendChild(name);
        var q = el("td", r.quant + " "); q.appendChild(el("small", "(" + L.quality[r.grade] + ")")); tr.appendChild(q);
        tr.appendChild(el("td", gib(r.total), "num"));
        tr.appendChild(el("td", withSpeed ? sig(r.speed) + " " + L.toks : "—", "num"));
        tr.appendChild(el("td", withSpeed && r.ctx ? num(r.ctx, 0) : "—", "num"));
        var v = el("td"); v.appendChild(el("span", L.verdict[r.verdict], "badge v-" + r.verdict));
        if (r.host) { v.appendChild(document.createTextNode(" ")); v.appendChild(el("small", fill(L.hostRam, { size: gib(r.host) }))); }
        tr.appendChild(v); body.appendChild(tr);
      });
      t.appendChild(body);
      var wrap = el("div", null, "scroll"); wrap.tabIndex = 0; wrap.setAttribute("role", "region");
      wrap.setAttribute("aria-labelledby", "finder-count"); wrap.appendChild(t);
      return wrap;
    }

    function hardwareRows(mode) {
      if (mode === "memory") {
        var vram = parseFloat(document.getElementById("f-vram").value) * GIB || 0;
        var ram = parseFloat(document.getElementById("f-ram").value) * GIB || 0, rule = d.fit_rule;
        var tight = Math.max(Math.floor(vram * rule.tight_fraction), rule.tight_min_bytes), rows = [];
        var rank = { fits: 0, tight: 1, offload: 2 };
        d.models.forEach(function (m) {
          var best = null;  // as the pages recommend: fits before tight before offload, then the better quality
          d.memory_quants.forEach(function (quant, i) {
            var total = m.memory_bytes[i], verdict = null, grade = d.memory_quality_grades[i];
            if (vram - total >= tight) verdict = "fits";
            else if (vram - total >= 0) verdict = "tight";
            else if (vram > rule.fit_target_bytes && total <= vram - rule.fit_target_bytes + ram) verdict = "offload";
            if (verdict && (!best || rank[verdict] < rank[best.verdict] || (rank[verdict] === rank[best.verdict] && grade < best.gradeIndex)))
              best = { verdict: verdict, quant: quant, total: total, gradeIndex: grade };
          });
          if (best) rows.push({ model: m, href: modelPath(m.id), quant: best.quant, grade: d.quality_grades[best.gradeIndex],
            gradeIndex: best.gradeIndex, quality: d.quants.indexOf(best.quant), verdict: best.verdict, total: best.total,
            speed: null, ctx: null, host: best.verdict === "offload" ? best.total - (vram - rule.fit_target_bytes) : 0 });
        });
        return rows;
      }
      var gpu = gpuById[document.getElementById(mode === "mac" ? "f-mac" : "f-gpu").value];
      return gpu.runs.map(function (r) {
        var m = d.models[r[0]];
        return { model: m, href: pairPath(m.id, gpu.id), quant: d.quants[r[1]], grade: d.quality_grades[r[2]],
          gradeIndex: r[2], quality: r[1], verdict: d.verdicts[r[3]], total: r[4], speed: r[5], ctx: r[6], host: r[7] };
      });
    }

    function showHardware(mode) {
      var rows = hardwareRows(mode), fit = checked("finder-fit"), sort = checked("finder-sort");
      var fits = rows.filter(function (r) { return r.verdict !== "offload"; }).length;
      count.textContent = fill(mode === "memory" ? L.countMemory : L.count,
        { n: num(rows.length, 0), total: num(d.models.length, 0), fits: num(fits, 0), offload: num(rows.length - fits, 0) })
        + (mode === "memory" ? " " + L.noSpeed : "");
      rows = rows.filter(function (r) { return fit === "all" || (fit === "offload") === (r.verdict === "offload"); });
      rows.sort(function (a, b) {
        if (sort === "quality") return a.gradeIndex - b.gradeIndex || a.quality - b.quality || b.model.total_params - a.model.total_params;
        if (sort === "size") return b.model.total_params - a.model.total_params || (b.speed || 0) - (a.speed || 0);
        return b.speed - a.speed || b.model.total_params - a.model.total_params;
      });
      out.textContent = "";
      out.appendChild(rows.length ? table(rows, mode !== "memory") : el("p", L.none));
    }

    function showModel() {
      var m = modelById[document.getElementById("f-model").value], list = el("ul", null, "finder-picks");
      count.textContent = fill(L.modelCount, { model: m.name });
      function item(label, href, name, details) {
        var li = el("li"); li.appendChild(el("span", label, "label")); li.appendChild(document.createTextNode(" "));
        li.appendChild(link(href, name)); li.appendChild(document.createTextNode(" "));
        li.appendChild(el("small", details.join(" · "))); list.appendChild(li);
      }
      m.recommended.forEach(function (p) {
        var gpu = d.gpus[p.gpu], details = [d.quants[p.quant], sig(p.decode_tokens_per_s) + " " + L.toks];
        if (p.offer) details.push(p.offer + " " + usd(p.price_usd_per_gpu_hour) + " " + L.perHour);
        else if (p.price_usd) details.push(usd(p.price_usd, 0) + " " + L.listPrice);
        if (p.below_floor) details.push(L.belowFloor);
        item(L.role[p.role], pairPath(m.id, gpu.id), gpu.name, details);
      });
      if (!m.recommended.length) list.appendChild(el("li", L.noPick));
      var cloud = m.recommended.some(function (p) { return p.role === "cloud"; });
      if (!cloud && m.multi_gpu_setups.length) {
        var s = m.multi_gpu_setups[m.multi_gpu_setups.length - 1], g = d.gpus[s.gpu];
        item(L.multi, gpuPath(g.id), s.gpu_count + "× " + g.name, [s.quant, usd(s.price_usd_per_hour) + "/h"]);
      }
      m.serving.forEach(function (s) {
        var g = d.gpus[s.gpu];
        item(L.serving + " (" + s.precision + ")", pairPath(m.id, g.id), s.gpu_count + "× " + g.name,
          [s.engine, usd(s.usd_per_million_output_tokens) + " " + L.perMtok, sig(s.tokens_per_s_per_user) + " " + L.perUser,
           s.offer + " " + usd(s.price_usd_per_gpu_hour) + " " + L.perHour]);
      });
      out.textContent = "";
      out.appendChild(list);
      var all = el("p"); all.appendChild(link(modelPath(m.id), fill(L.modelPage, { model: m.name }))); out.appendChild(all);
    }

    function render() {
      var mode = checked("finder-mode");
      box.querySelectorAll(".finder-pick").forEach(function (p) { p.hidden = p.dataset.mode !== mode; });
      box.querySelector(".finder-view").hidden = mode === "model";
      var speed = document.getElementById("fs-speed");  // the visitor's own memory has no speed figures
      speed.hidden = speed.labels[0].hidden = mode === "memory";
      if (mode === "memory" && speed.checked) document.getElementById("fs-size").checked = true;
      if (mode === "model") showModel(); else showHardware(mode);
    }
    document.getElementById("finder-form").addEventListener("submit", function (e) { e.preventDefault(); render(); });
    box.querySelectorAll("input, select").forEach(function (c) { c.addEventListener(c.type === "number" ? "input" : "change", render); });
    render();
  }

  fetch(box.dataset.src).then(function (r) { return r.json(); }).then(start);
})();
