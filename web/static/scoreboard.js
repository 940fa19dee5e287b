// The scoreboard: the board as a wheel, the players, the run and the log, redrawn on every view.
"use strict";

const CENTRE = { "michigan-1939": "pot", bonanza: "centre", tripoley: "kitty" };

// A section's label for the wheel: card parts as "Q♥" each in its suit's colour, other names translated.
function sectionLabel(name, x, y, size) {
  const parts = name.split("-");
  const text = el("svg:text", { x: x.toFixed(2), y: y.toFixed(2), class: "sec-name" });
  if (parts.every(isCard)) {
    parts.forEach((p) => text.append(el("svg:tspan", { class: isRed(p) ? "red" : null }, cardShort(p))));
  } else {
    const label = parts.every((p) => /^\d+$/.test(p)) ? name : sectionName(name);
    text.append(label);
    size = size * Math.min(1, 6 / Math.max(label.length, 1)); // long words shrink to stay in their wedge
  }
  text.setAttribute("font-size", size.toFixed(2));
  return text;
}

function polar(r, angle) {
  return [r * Math.sin(angle), -r * Math.cos(angle)];
}

function wedge(r0, r1, a0, a1) {
  const [x0, y0] = polar(r1, a0), [x1, y1] = polar(r1, a1);
  const [x2, y2] = polar(r0, a1), [x3, y3] = polar(r0, a0);
  const large = a1 - a0 > Math.PI ? 1 : 0;
  return `M${x0.toFixed(2)},${y0.toFixed(2)} A${r1},${r1} 0 ${large} 1 ${x1.toFixed(2)},${y1.toFixed(2)} ` +
    `L${x2.toFixed(2)},${y2.toFixed(2)} A${r0},${r0} 0 ${large} 0 ${x3.toFixed(2)},${y3.toFixed(2)} Z`;
}

function drawWheel(view) {
  const svg = document.getElementById("wheel");
  svg.replaceChildren();
  const won = new Set((view.won || []).map((w) => w.section));
  const centreName = CENTRE[view.variant];
  const ring = view.sections.filter((s) => s.name !== centreName);
  const centre = view.sections.find((s) => s.name === centreName);
  const step = (2 * Math.PI) / Math.max(ring.length, 1);
  ring.forEach((s, i) => {
    const a0 = i * step - step / 2, a1 = a0 + step, mid = i * step;
    const g = el("svg:g", { class: "section" + (won.has(s.name) ? " won" : "") + (s.chips ? "" : " empty"), "data-section": s.name });
    g.append(el("svg:title", {}, `${sectionName(s.name)}: ${chips(s.chips)}`));
    g.append(el("svg:path", { d: wedge(42, 97, a0 + 0.012, a1 - 0.012), class: "slice s" + (i % 2) }));
    const [x, y] = polar(71, mid); // name above the count, both upright, at the wedge's middle
    const small = ring.length > 9;
    g.append(sectionLabel(s.name, x, y - (small ? 9 : 10), small ? 8.5 : 10));
    g.append(el("svg:text", { x: x.toFixed(2), y: (y + (small ? 6 : 7)).toFixed(2), class: "sec-chips", "font-size": small ? 16 : 19 }, String(s.chips)));
    svg.append(g);
  });
  if (centre) {
    const g = el("svg:g", { class: "section centre" + (won.has(centre.name) ? " won" : ""), "data-section": centre.name });
    g.append(el("svg:title", {}, `${sectionName(centre.name)}: ${chips(centre.chips)}`));
    g.append(el("svg:circle", { r: 39, class: "slice hub" }));
    g.append(el("svg:text", { y: -13, class: "sec-name", "font-size": 10 }, sectionName(centre.name)));
    g.append(el("svg:text", { y: 12, class: "sec-chips", "font-size": 30 }, String(centre.chips)));
    svg.append(g);
  }
}

function drawStatus(view) {
  const box = document.getElementById("status");
  const parts = [];
  if (view.variant) parts.push(el("span", { class: "variant" }, lookup("variants", view.variant) || view.variant));
  if (view.hands) parts.push(el("span", {}, `${t("hand")} ${view.hands}`));
  if (view.phase) parts.push(el("span", { class: "phase" }, lookup("phases", view.phase) || view.phase));
  if (view.call) parts.push(el("span", { class: "call" }, `${t("call")}: ${lookup("calls", view.call) || view.call}`));
  box.replaceChildren(...parts);
}

function drawPlayers(view) {
  const body = document.querySelector("#players tbody");
  const run = view.run || {};
  const folded = new Set((view.poker && view.poker.folded) || []);
  body.replaceChildren(
    ...view.players.map((p) => {
      const marks = [];
      if (p.dealer) marks.push(el("span", { class: "badge dealer", title: t("dealer") }, t("dealer_badge")));
      if (p.folded || folded.has(p.name)) marks.push(el("span", { class: "badge folded" }, t("folded")));
      if (view.out === p.name) marks.push(el("span", { class: "badge out" }, "\u2605"));
      const cls = [p.name === run.last_player ? "last" : "", p.name === run.to_reopen ? "reopen" : ""].join(" ").trim();
      return el("tr", { class: cls || null, "data-player": p.name },
        el("td", { class: "name" }, p.name, ...marks),
        el("td", { class: "num balance" + (p.balance < 0 ? " debt" : "") }, String(p.balance)),
        el("td", { class: "num left" }, p.cards_left == null ? "\u2013" : String(p.cards_left)));
    }),
  );
}

function drawRun(view) {
  const box = document.getElementById("run");
  const run = view.run || {};
  if (!run.suit && !run.last_card && !(run.stops && run.stops.length)) {
    box.replaceChildren();
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const rows = [el("h2", {}, t("run"))];
  const line = el("div", { class: "run-line" });
  if (run.suit) line.append(el("span", { class: "suit big" + (run.suit === "H" || run.suit === "D" ? " red" : ""), title: lookup("suits", run.suit) }, SUIT_SYMBOL[run.suit]));
  if (run.last_card) line.append(el("span", { class: "kv" }, el("small", {}, t("last_card")), cardChip(run.last_card), run.last_player ? el("small", {}, run.last_player) : null));
  if (run.next_card) line.append(el("span", { class: "kv next" }, el("small", {}, t("next_card")), cardChip(run.next_card)));
  if (run.to_reopen) line.append(el("span", { class: "kv" }, el("small", {}, t("to_reopen")), el("strong", {}, run.to_reopen)));
  rows.push(line);
  if (run.stops && run.stops.length) rows.push(el("div", { class: "stops" }, el("small", {}, t("stops")), ...run.stops.map(cardChip)));
  box.replaceChildren(...rows);
}

function drawExtra(view) {
  const box = document.getElementById("extra");
  const parts = [];
  const bets = view.poker && view.poker.bets ? Object.entries(view.poker.bets) : [];
  if (bets.length) parts.push(el("div", {}, el("small", {}, t("poker_bets")), " ", bets.map(([p, c]) => `${p} ${c}`).join(" \u00B7 ")));
  const bids = view.widow && view.widow.bids ? view.widow.bids : [];
  if (bids.length) parts.push(el("div", {}, el("small", {}, t("widow_bids")), " ", bids.map((b) => `${b.player} ${b.chips}`).join(" \u00B7 ")));
  box.replaceChildren(...parts);
  box.hidden = parts.length === 0;
}

// The end of the game: the standings take the empty wheel's place, the settlement the side's.
function drawFinal(view) {
  const final = view.final;
  document.body.classList.toggle("over", Boolean(final));
  document.getElementById("final").hidden = !final;
  const body = document.querySelector("#final tbody");
  if (!final) {
    body.replaceChildren();
    return;
  }
  const signed = (n) => (n > 0 ? "+" + n : n < 0 ? "\u2212" + -n : "0");
  body.replaceChildren(
    ...final.standings.map((p) =>
      el("tr", { class: p.place === 1 ? "first" : null, "data-player": p.name },
        el("td", { class: "num place" }, p.place === 1 ? "\u2605 1" : String(p.place)),
        el("td", { class: "name" }, p.name),
        el("td", { class: "num balance" }, String(p.balance)),
        el("td", { class: "num net" + (p.net < 0 ? " debt" : "") }, signed(p.net)))),
  );
}

function drawSettlement(view) {
  const box = document.getElementById("settlement");
  const final = view.final;
  const pays = final ? final.settlement : view.settlement || [];
  box.hidden = !final && pays.length === 0;
  box.replaceChildren(
    el("h2", {}, t(final ? "settle_up" : "settlement")),
    pays.length
      ? el("ul", {}, ...pays.map((p) => el("li", {}, t("pays", { from: p.from, to: p.to, chips: chips(p.chips) }))))
      : el("p", {}, t("all_even")),
  );
}

function drawFlags(view) {
  const box = document.getElementById("flags");
  const flags = (view.flags || []).slice(-3).reverse();
  box.hidden = flags.length === 0;
  box.replaceChildren(el("h2", {}, t("flags")), el("ul", {}, ...flags.map((f) => el("li", {}, "\u2691 " + describeFlag(f)))));
}

function drawNotice(view) {
  const box = document.getElementById("notice");
  const n = view.notice;
  box.hidden = !n;
  box.replaceChildren(n ? el("span", {}, "\u26A0 ", el("strong", {}, t("rejected")), " \u2014 ", n.text || "") : "");
  const banner = document.getElementById("banner");
  let text = null;
  if (view.over) text = t("game_over");
  else if (view.out) text = t("out", { player: view.out });
  else if (view.pending && view.pending.length) text = t("waiting_referee");
  else if (!view.players.length) text = t("no_game");
  banner.hidden = text == null;
  banner.textContent = text || "";
}

// The camera's state for the players: a quiet word while it reads, a box they notice when it does not.
function drawCamera(view) {
  const state = document.getElementById("camera-state");
  const alert = document.getElementById("camera-alert");
  state.hidden = !view.camera;
  state.className = "camera-state " + (view.camera || "");
  state.textContent = view.camera ? t("camera_" + view.camera) : "";
  alert.hidden = !view.camera || view.camera === "reading";
  alert.querySelector("strong").textContent = alert.hidden ? "" : t("camera_" + view.camera);
}

function drawExpect(view) {
  const box = document.getElementById("expect");
  const text = view.over ? "" : describeExpect(view);
  box.hidden = !text;
  box.textContent = text;
}

function drawLog(view) {
  const list = document.getElementById("log");
  const entries = (view.log || []).slice(-10).reverse();
  list.replaceChildren(...entries.map((e, i) => el("li", { class: "kind-" + e.kind + (i === 0 ? " newest" : "") }, describe(e))));
  if (!entries.length) list.append(el("li", { class: "empty" }, t("nothing_yet")));
}

function render(view) {
  drawWheel(view);
  drawStatus(view);
  drawPlayers(view);
  drawRun(view);
  drawExtra(view);
  drawFinal(view);
  drawSettlement(view);
  drawFlags(view);
  drawNotice(view);
  drawCamera(view);
  drawExpect(view);
  drawLog(view);
  document.body.dataset.version = view.version;
}

connectLive(render);
