"use strict";
// Rent-or-buy calculator: the arithmetic of generator/estimate/cost.py rent_or_buy, step for step, on the figures
// the page embeds (tokens/s, power, rent per hour): no estimate is made here. The inputs live in the address.
(function () {
  var form = document.getElementById("rentbuy");
  if (!form) { return; }
  var lang = document.documentElement.lang || "en";
  var FIELDS = ["price", "kwh", "hours", "years"];
  var money = new Intl.NumberFormat(lang, { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 2 });
  var oneDigit = new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  var data = function (name) { var v = form.dataset[name]; return v === undefined || v === "" ? null : parseFloat(v); };
  var powerW = data("powerW"), single = data("singleTps"), batched = data("batchedTps"), rent = data("rentUsdPerHour");
  var input = function (name) { return form.elements.namedItem(name); };
  var number = function (name) { var v = input(name).value.trim(); return v === "" ? null : Number(v); };

  // The same formula as cost.rent_or_buy: null where an input is missing or out of range.
  function compute(price, kwh, hours, years) {
    if (!(hours > 0 && hours <= 24 && years > 0 && kwh >= 0)) { return null; }
    var hoursPerMonth = hours * 365 / 12;
    var powerPerHour = (powerW || 0) / 1000 * kwh;
    var owned = price !== null && price > 0 ? price : null;
    var perMtok = function (tps) {
      if (owned === null || !tps || tps <= 0) { return null; }
      return (owned / (years * 12 * hoursPerMonth) + powerPerHour) / (tps * 3600) * 1e6;
    };
    var breakeven = null;
    if (owned !== null && rent !== null && rent - powerPerHour > 0) { breakeven = owned / ((rent - powerPerHour) * hoursPerMonth); }
    return { powerMonth: powerPerHour * hoursPerMonth, single: perMtok(single), batched: perMtok(batched), breakeven: breakeven,
             never: owned !== null && rent !== null && breakeven === null };
  }

  function show(key, value, text) {
    form.parentNode.querySelectorAll("output[data-out=" + key + "]").forEach(function (out) {
      out.textContent = text;
      out.dataset.value = value === null ? "" : String(value);
    });
  }

  function render() {
    var price = number("price"), kwh = number("kwh"), hours = number("hours"), years = number("years");
    var r = compute(price, kwh, hours, years);
    var usd = function (v) { return v === null ? "—" : money.format(v); };
    if (r === null) { r = { powerMonth: null, single: null, batched: null, breakeven: null, never: false }; }
    var months = r.breakeven === null ? (r.never ? form.dataset.never : "—") : form.dataset.months.replace("#", oneDigit.format(r.breakeven));
    show("breakeven", r.breakeven, months);
    show("power-month", powerW ? r.powerMonth : null, powerW && r.powerMonth !== null ? usd(r.powerMonth) : "—");
    show("local-single", r.single, usd(r.single));
    show("local-batched", r.batched, usd(r.batched));
    show("years", years, years > 0 ? oneDigit.format(years) : "—");
    show("kwh", kwh, kwh !== null && kwh >= 0 ? money.format(kwh) : "—");
    var line = form.parentNode.querySelector(".rentbuy-line");
    if (line) { line.hidden = r.single === null; }
  }

  function remember() {
    var params = new URLSearchParams(location.search);
    FIELDS.forEach(function (name) { var v = input(name).value.trim(); if (v === "" || v === input(name).defaultValue) { params.delete(name); } else { params.set(name, v); } });
    var query = params.toString();
    history.replaceState(null, "", location.pathname + (query ? "?" + query : "") + location.hash);
  }

  var given = new URLSearchParams(location.search);
  FIELDS.forEach(function (name) {
    var v = given.get(name);
    if (v !== null && v.trim() !== "" && isFinite(Number(v))) { input(name).value = v.trim(); }
  });
  form.addEventListener("input", function () { render(); remember(); });
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  render();
})();
