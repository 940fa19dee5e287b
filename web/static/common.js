// Shared by every page: the catalog (same rules as web/i18n.py), DOM helpers, the live view.
"use strict";

const BOOT = JSON.parse(document.getElementById("boot").textContent);
const I18N = BOOT.i18n;
const FALLBACK = BOOT.fallback;
const SVG_NS = "http://www.w3.org/2000/svg";
const SUIT_SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };

function lookup(group, key) {
  const mine = I18N[group] && I18N[group][key];
  if (mine != null) return mine;
  return FALLBACK[group] ? FALLBACK[group][key] : undefined;
}

function fmt(text, params) {
  return text.replace(/\{(\w+)\}/g, (m, k) => (params && params[k] != null ? String(params[k]) : m));
}

function t(key, params) {
  const text = lookup("ui", key);
  return fmt(text == null ? key : text, params);
}

function cardName(code) {
  if (code === "JK") return I18N.joker || "Joker";
  const rank = lookup("ranks", code[0]);
  const suit = lookup("suits", code.slice(1));
  if (code.length !== 2 || rank == null || suit == null) return code;
  return fmt(I18N.card, { rank, suit });
}

function isCard(code) {
  return code === "JK" || (code.length === 2 && lookup("ranks", code[0]) != null && SUIT_SYMBOL[code[1]] != null);
}

// "Q♥" (rank letter in the reader's language, suit as its symbol): short enough for the wheel.
function cardShort(code) {
  if (code === "JK") return "\u2605";
  return (lookup("rank_short", code[0]) || code[0]) + SUIT_SYMBOL[code[1]];
}

function isRed(code) {
  return code.length === 2 && (code[1] === "H" || code[1] === "D");
}

let VARIANT = BOOT.view ? BOOT.view.variant : null; // some names differ by game (Tripoley's "pot" is its poker pool)

function sectionName(name) {
  const named = lookup("sections", `${VARIANT}:${name}`) ?? lookup("sections", name);
  return named != null ? named : cardName(name);
}

function chips(n) {
  const forms = I18N.chips;
  const one = BOOT.lang === "fr" ? n === 0 || n === 1 : n === 1;
  return fmt(one && forms.one ? forms.one : forms.other, { n });
}

function field(name, value) {
  switch (name) {
    case "card": return cardName(value);
    case "cards": return value.map(cardName).join(", ");
    case "section": return sectionName(value);
    case "chips": return chips(value);
    case "players": return value.join(", ");
    case "variant": return lookup("variants", value) || String(value);
    case "call": return lookup("calls", value) || String(value);
    case "action": return lookup("actions", value) || String(value);
    default: return String(value);
  }
}

function present(v) {
  return v != null && v !== "" && !(Array.isArray(v) && v.length === 0);
}

// A log entry in the reader's language: the first template of its kind whose fields are all there.
function describe(entry) {
  return word("log", entry);
}

// The same rule for any group of templates ("log", "expect").
function word(group, entry) {
  const templates = (I18N[group] && I18N[group][entry.kind]) || [];
  for (const template of templates) {
    const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    if (names.every((n) => present(entry[n]))) {
      try {
        const params = {};
        for (const n of names) params[n] = field(n, entry[n]);
        return fmt(template, params);
      } catch (e) {
        break;
      }
    }
  }
  return entry.text || "";
}

// The view's expect entries as one line: "Next: Five of diamonds, or Cy reopens in another suit".
function describeExpect(view) {
  return (view.expect || []).filter((e) => e.headline).map((e) => word("expect", e)).join(t("expect_or"));
}

// "settled as 5D: the only legal card among 5D/5H"
function describeSettled(entry) {
  return t("settled_as", { card: entry.card, candidates: entry.candidates.join("/") });
}

// el("td", {class: "num"}, "12"): text only ever goes in as text nodes (player names are typed by people).
function el(tag, attrs, ...children) {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG_NS, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v == null) continue;
    node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c == null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function cardChip(code) {
  return el("span", { class: "card" + (isRed(code) ? " red" : ""), title: cardName(code) }, isCard(code) ? cardShort(code) : code);
}

// The live view: server-sent events, reconnecting by themselves, with a slow poll of /api/state as a net.
function connectLive(onView) {
  const conn = document.getElementById("conn");
  let version = null;
  let source = null;
  let live = false;
  let pollTimer = null;

  function apply(view) {
    if (!view || view.version === version) return;
    version = view.version;
    VARIANT = view.variant;
    onView(view);
  }
  function setLive(on) {
    live = on;
    if (conn) {
      conn.textContent = on ? "\u25CF " + t("live") : "\u25CB " + t("reconnecting");
      conn.className = "conn " + (on ? "on" : "off");
    }
    schedulePoll();
  }
  function poll() {
    fetch("/api/state", { cache: "no-store" })
      .then((r) => (r.ok ? r.json() : null))
      .then(apply)
      .catch(() => {})
      .finally(schedulePoll);
  }
  function schedulePoll() {
    clearTimeout(pollTimer);
    pollTimer = setTimeout(poll, live ? 15000 : 2000);
  }
  let retryMs = 2000;
  function open() {
    source = new EventSource("/api/events");
    source.onopen = () => {
      retryMs = 2000;
      setLive(true);
    };
    source.onmessage = (e) => {
      setLive(true);
      apply(JSON.parse(e.data));
    };
    source.onerror = () => {
      setLive(false);
      if (source.readyState === EventSource.CLOSED) {
        // The browser gave up on this one: a restart, or a 503 because too many streams are open.
        // Polling keeps the page current meanwhile; each new try waits twice as long, up to a minute.
        setTimeout(open, retryMs);
        retryMs = Math.min(retryMs * 2, 60000);
      }
    };
  }
  if (BOOT.view) apply(BOOT.view);
  open();
  setLive(false);
  return { current: () => version };
}

// A referee flag (docs/record.md) in words: withheld cards, or a lower card after an opening.
function describeFlag(flag) {
  const players = (flag.players || []).join(", ");
  const cards = flag.cards || [];
  if (flag.kind === "not-lowest" && cards.length === 2) {
    return t("flag_not-lowest", { players, first: cardName(cards[0]), second: cardName(cards[1]) });
  }
  if (flag.kind === "withheld") return t("flag_withheld", { players, cards: cards.map(cardName).join(", ") });
  return `${flag.kind}: ${players} ${cards.join(" ")}`;
}
