// The referee page: each form becomes one record event posted to the API; the engine's reason shows on refusal.
"use strict";

const CARD_RE = /^\s*(10|[2-9TJQKA])[SHDC\u2660\u2665\u2666\u2663]\s*$|^\s*JK\s*$/i;
let VIEW = null;
let lastDealer; // the deal form proposes the next dealer once per change of dealer, not on every update
let said = 0; // messages shown so far: a late answer's "done" must not cover a message said after its question

function say(text, ok) {
  said += 1;
  const box = document.getElementById("message");
  box.textContent = text;
  box.className = "message " + (ok ? "ok" : "error");
  box.hidden = false;
  clearTimeout(say.timer);
  if (ok) say.timer = setTimeout(() => (box.hidden = true), 2500);
}

class Refusal extends Error {}

async function post(url, body, contentType = "application/json") {
  let response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": contentType, "X-CSRF-Token": BOOT.csrf },
      body: typeof body === "string" ? body : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch (e) {
    throw new Refusal(t("offline"));
  }
  let data = null;
  try {
    data = await response.json();
  } catch (e) {
    data = null;
  }
  if (response.status === 401) {
    window.location.href = "/referee/login";
    throw new Refusal(t("session_expired"));
  }
  if (!response.ok) throw new Refusal((data && data.error) || `HTTP ${response.status}`);
  return data;
}

// Reads one field of a form into the event, or throws a Refusal with the reason in the reader's language.
function readField(name, value, event) {
  value = String(value || "").trim();
  if (name === "player" || name === "dealer") {
    if (!value) throw new Refusal(t("need_player"));
    event[name] = value;
  } else if (name === "chips") {
    if (!/^\d{1,7}$/.test(value) || Number(value) < 1) throw new Refusal(t("need_chips"));
    event.chips = Number(value);
  } else if (name === "card") {
    if (!CARD_RE.test(value)) throw new Refusal(t("need_card"));
    event.card = value.toUpperCase();
  } else if (name === "cards") {
    const cards = value.split(/[\s,;]+/).filter(Boolean);
    if (!cards.length || !cards.every((c) => CARD_RE.test(c))) throw new Refusal(t("need_cards"));
    event.cards = cards.map((c) => c.toUpperCase());
  } else if (name === "action") {
    event.action = value;
  }
}

function eventFromForm(form, submitter) {
  const event = { type: submitter && submitter.name === "type" ? submitter.value : form.dataset.type };
  for (const input of form.querySelectorAll("input[name], select[name]")) {
    if (event.type === "discard" && input.name === "cards" && !input.value.trim()) {
      event.cards = ["JK"]; // laying aside is always the Joker
      continue;
    }
    readField(input.name, input.value, event);
  }
  if (submitter && submitter.name && submitter.name !== "type") readField(submitter.name, submitter.value, event);
  return event;
}

// One action's answer: the view it returns is drawn; "done" is said unless a message came since it was
// asked (a slow network's answer to the last action must not hide a refusal of the next); a refusal always is.
async function act(work, after) {
  const since = said;
  try {
    const view = await work();
    if (view && view.version != null) render(view);
    if (said === since) say(t("done"), true);
    if (after) after();
  } catch (e) {
    say(e instanceof Refusal ? e.message : String(e), false);
  }
}

function fillPlayerSelects(view) {
  const names = view.players.map((p) => p.name);
  for (const select of document.querySelectorAll("select.player-select")) {
    const chosen = select.value;
    const options = [el("option", { value: "" }, "\u2014"), ...names.map((n) => el("option", { value: n }, n))];
    select.replaceChildren(...options);
    if (names.includes(chosen)) select.value = chosen;
  }
  const deal = document.querySelector("#deal-form select");
  if (deal && names.length && (view.dealer !== lastDealer || !deal.value)) {
    deal.value = view.dealer ? names[(names.indexOf(view.dealer) + 1) % names.length] : names[0];
  }
  lastDealer = view.dealer;
}

function drawStatus(view) {
  const box = document.getElementById("ref-status");
  const items = [];
  const add = (label, value) => items.push(el("span", {}, label + ": ", el("b", {}, value)));
  if (!view.players.length) {
    items.push(el("span", {}, t("no_game")));
  } else {
    add(t("variant"), lookup("variants", view.variant) || view.variant);
    add(t("phase"), lookup("phases", view.phase) || view.phase);
    if (view.dealer) add(t("dealer"), view.dealer);
    if (view.call) add(t("call"), lookup("calls", view.call) || view.call);
    if (view.run && view.run.next_card) add(t("next_card"), cardName(view.run.next_card));
    if (view.run && view.run.to_reopen) add(t("to_reopen"), view.run.to_reopen);
    const expected = describeExpect(view);
    if (expected) items.push(el("span", { class: "expect" }, expected));
    add(t("balance"), view.players.map((p) => `${p.name} ${p.balance}`).join(" \u00B7 "));
  }
  if (view.notice) items.push(el("span", { class: "red" }, "\u26A0 " + view.notice.text));
  for (const s of (view.settled || []).slice(-3)) items.push(el("span", { class: "settled", title: t("settled") }, "\u2713 " + `${s.player}: ${describeSettled(s)}`));
  for (const flag of (view.flags || []).slice(-3)) items.push(el("span", { class: "flag" }, "\u2691 " + describeFlag(flag)));
  box.replaceChildren(...items);
}

function drawPending(view) {
  const box = document.getElementById("pending");
  const pending = view.pending || [];
  document.getElementById("pending-box").hidden = pending.length === 0;
  box.replaceChildren(
    ...pending.map((p) => {
      const buttons = p.candidates.map(([code, prob]) => {
        const b = el("button", { type: "button" }, `${cardShort(code)} ${Math.round(prob * 100)}%`);
        b.addEventListener("click", () => act(() => post("/api/confirm", { id: p.id, code })));
        return b;
      });
      const input = el("input", { class: "card-input", size: 4, maxlength: 4, "aria-label": t("correct") });
      const fix = el("button", { type: "button", class: "warn" }, t("correct"));
      fix.addEventListener("click", () => {
        if (!CARD_RE.test(input.value)) return say(t("need_card"), false);
        act(() => post("/api/confirm", { id: p.id, code: input.value.trim().toUpperCase() }));
      });
      const drop = el("button", { type: "button", class: "danger" }, t("dismiss"));
      drop.addEventListener("click", () => act(() => post("/api/dismiss", { id: p.id })));
      const why = p.reason === "unmoved" ? [el("span", { class: "flag" }, t("pending_unmoved"))] : [];
      return el("div", { class: "pending-item" }, el("strong", {}, `${p.player} \u2192 ${t(p.action)}`), ...why, ...buttons, input, fix, drop);
    }),
  );
}

function drawLog(view) {
  const list = document.getElementById("ref-log");
  const entries = (view.log || []).slice(-12).reverse();
  list.replaceChildren(...entries.map((e) => el("li", {}, describe(e))));
}

// The companion's voice, where the table has one: its state, and one button to mute it or let it speak.
function drawVoice(view) {
  const muted = view.voice === "muted";
  document.getElementById("voice-row").hidden = !view.voice;
  document.getElementById("voice-state").textContent = view.voice ? t(muted ? "voice_muted" : "voice_on") : "";
  const button = document.getElementById("voice-toggle");
  button.textContent = t(muted ? "voice_unmute" : "voice_mute");
  button.setAttribute("aria-pressed", String(muted));
}

function render(view) {
  VIEW = view;
  drawVoice(view);
  fillPlayerSelects(view);
  drawStatus(view);
  drawPending(view);
  drawLog(view);
  for (const box of document.querySelectorAll("[data-phases]")) {
    const phases = box.dataset.phases.split(" ");
    box.classList.toggle("dim", !!view.phase && !phases.includes(view.phase));
  }
  document.getElementById("replace-row").hidden = view.players.length === 0;
  document.body.dataset.version = view.version;
}

for (const form of document.querySelectorAll("form[data-type]")) {
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    let event;
    try {
      event = eventFromForm(form, e.submitter);
    } catch (err) {
      return say(err.message, false);
    }
    // On success the cards sent are cleared, but not what was typed since (the answer can be slow).
    const sent = [...form.querySelectorAll("input.card-input, input.cards")].map((input) => [input, input.value]);
    act(() => post("/api/event", event), () => {
      for (const [input, value] of sent) if (input.value === value) input.value = "";
    });
  });
}

for (const button of document.querySelectorAll("[data-simple]")) {
  button.addEventListener("click", () => {
    if (button.dataset.confirm && !window.confirm(button.dataset.confirm)) return;
    act(() => post("/api/event", { type: button.dataset.simple }));
  });
}

document.getElementById("voice-toggle").addEventListener("click", () =>
  act(() => post("/api/voice", { muted: !(VIEW && VIEW.voice === "muted") })),
);

document.getElementById("undo").addEventListener("click", () => act(() => post("/api/undo", {})));

document.getElementById("new-game").addEventListener("submit", (e) => {
  e.preventDefault();
  const form = e.target;
  const players = form.players.value.split(/[\n,]+/).map((s) => s.trim()).filter(Boolean);
  if (players.length < 2 || players.length > 9 || new Set(players.map((p) => p.toLowerCase())).size !== players.length) {
    return say(t("need_players"), false);
  }
  const game = { type: "game", variant: form.variant.value, players };
  try {
    readField("chips", form.chips.value, game);
  } catch (err) {
    return say(err.message, false);
  }
  const options = {};
  if (form.widow_position.value) options.widow_position = form.widow_position.value;
  if (form.reopen.value) options.reopen = form.reopen.value;
  if (form.card_penalty.value) options.card_penalty = form.card_penalty.value === "true";
  if (Object.keys(options).length) game.options = options;
  act(() => post("/api/new-game", { game, replace: form.replace.checked }), () => (form.replace.checked = false));
});

document.getElementById("import-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const file = e.target.record.files[0];
  if (!file) return say(t("need_file"), false);
  if (VIEW && VIEW.players.length && !window.confirm(t("import_confirm"))) return;
  act(async () => post("/api/import", await file.text(), "application/jsonl"));
});

connectLive(render);
