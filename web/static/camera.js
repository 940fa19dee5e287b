// The camera page: the live frame, the cards seen on it, and a zone editor (drag the corners).
"use strict";

const zones = BOOT.zones || {};
let selected = Object.keys(zones)[0] || null;
let detections = [];
let size = null; // [width, height] of the frame; zones are in its pixels
let dragging = false; // no redraw mid-drag: it would replace the corner being dragged
const overlay = document.getElementById("overlay");
const frame = document.getElementById("frame");

function say(text, ok) {
  const box = document.getElementById("message");
  box.textContent = text;
  box.className = "message " + (ok ? "ok" : "error");
  box.hidden = false;
}

function toUnit(event) {
  const box = overlay.getBoundingClientRect();
  const clamp = (v, top) => Math.round(Math.min(top, Math.max(0, v)) * 10) / 10;
  return [clamp(((event.clientX - box.left) / box.width) * size[0], size[0]), clamp(((event.clientY - box.top) / box.height) * size[1], size[1])];
}

// Each card's outline, and its name inside its box where that overlaps no other name: the list
// beside the picture names every card, and pointing at either lights up both.
function drawCards(parts, unit) {
  const widths = detections.map((d) => Math.hypot(d.outline[1][0] - d.outline[0][0], d.outline[1][1] - d.outline[0][1]));
  const median = widths.length ? [...widths].sort((a, b) => a - b)[Math.floor(widths.length / 2)] : 0;
  const size = Math.min(median * 0.28, 4 * unit);
  const labels = [];
  detections.forEach((d, i) => {
    parts.push(el("svg:polygon", { class: "det", "data-card": i, points: d.outline.map((p) => p.join(",")).join(" ") }));
    // Near the index corner (the outline starts there), which stays in sight when cards overlap in a row.
    const [o, across, down] = [d.outline[0], d.outline[1], d.outline[3]];
    const cx = o[0] + 0.3 * (across[0] - o[0]) + 0.3 * (down[0] - o[0]);
    const cy = o[1] + 0.3 * (across[1] - o[1]) + 0.3 * (down[1] - o[1]);
    const label = el("svg:text", { class: "det-label" + (isRed(d.code) ? " red" : ""), "data-card": i, x: cx, y: cy, "font-size": size },
      isCard(d.code) ? cardShort(d.code) : d.code);
    labels.push([d.confidence, label]);
  });
  return labels.sort((a, b) => b[0] - a[0]).map(([, label]) => label); // the surest first keep their place
}

// A name that would cross another's, or stick out of its card's box, is left to the list.
function dropOverlaps(labels) {
  const kept = [];
  for (const label of labels) {
    const b = label.getBBox();
    const card = overlay.querySelector(`.det[data-card="${label.dataset.card}"]`).getBBox();
    const within = b.x >= card.x && b.y >= card.y && b.x + b.width <= card.x + card.width && b.y + b.height <= card.y + card.height;
    const gap = b.height * 0.25; // names that touch read as one
    const clear = kept.every((k) => b.x >= k.x + k.width + gap || k.x >= b.x + b.width + gap ||
      b.y >= k.y + k.height + gap || k.y >= b.y + b.height + gap);
    if (within && clear && b.width > 0) kept.push(b);
    else label.remove();
  }
}

function light(index, on) {
  for (const node of document.querySelectorAll(`[data-card="${index}"]`)) node.classList.toggle("hot", on);
}

function drawSeen() {
  const list = document.getElementById("seen");
  if (!detections.length) {
    list.replaceChildren(el("li", { class: "empty" }, t("no_cards_seen")));
    return;
  }
  list.replaceChildren(...detections.map((d, i) => {
    const item = el("li", { "data-card": i }, cardChip(d.code), " ", cardName(d.code), " ",
      el("small", {}, `${Math.round(d.confidence * 100)}%`));
    item.addEventListener("pointerenter", () => light(i, true));
    item.addEventListener("pointerleave", () => light(i, false));
    return item;
  }));
}

function drawOverlay() {
  if (!size) return;
  const unit = Math.max(size[0], size[1]) / 100; // 1% of the frame, for marks and labels
  const parts = [];
  const labels = drawCards(parts, unit);
  for (const [name, poly] of Object.entries(zones)) {
    const zone = el("svg:polygon", { class: "zone" + (name === selected ? " selected" : ""), points: poly.map((p) => p.join(",")).join(" ") });
    zone.addEventListener("pointerdown", () => {
      selected = name;
      drawAll();
    });
    parts.push(zone);
    const cx = poly.reduce((s, p) => s + p[0], 0) / poly.length;
    const cy = poly.reduce((s, p) => s + p[1], 0) / poly.length;
    parts.push(el("svg:text", { class: "zone-label", x: cx, y: cy, "font-size": 3.5 * unit }, name));
    if (name !== selected) continue;
    poly.forEach((point, i) => {
      const corner = el("svg:circle", { class: "corner", cx: point[0], cy: point[1], r: 1.6 * unit, "data-zone": name, "data-corner": i });
      corner.addEventListener("pointerdown", (e) => {
        e.preventDefault();
        corner.setPointerCapture(e.pointerId);
        dragging = true;
        const move = (ev) => {
          poly[i] = toUnit(ev);
          corner.setAttribute("cx", poly[i][0]);
          corner.setAttribute("cy", poly[i][1]);
          zone.setAttribute("points", poly.map((p) => p.join(",")).join(" "));
        };
        corner.addEventListener("pointermove", move);
        corner.addEventListener("pointerup", () => {
          corner.removeEventListener("pointermove", move);
          dragging = false;
          drawAll();
        }, { once: true });
      });
      parts.push(corner);
    });
  }
  overlay.replaceChildren(...parts, ...labels);
  dropOverlaps(labels);
  for (const node of overlay.querySelectorAll(".det")) {
    node.addEventListener("pointerenter", () => light(node.dataset.card, true));
    node.addEventListener("pointerleave", () => light(node.dataset.card, false));
  }
}

function drawList() {
  const list = document.getElementById("zone-list");
  list.replaceChildren(
    ...Object.keys(zones).map((name) => {
      const pick = el("button", { type: "button", class: "pick" }, name);
      pick.addEventListener("click", () => {
        selected = name;
        drawAll();
      });
      const remove = el("button", { type: "button", class: "danger" }, t("remove_zone"));
      remove.addEventListener("click", () => {
        delete zones[name];
        if (selected === name) selected = Object.keys(zones)[0] || null;
        drawAll();
      });
      return el("li", { class: name === selected ? "selected" : null }, pick, remove);
    }),
  );
  const names = [...(BOOT.players || []), "centre"]; // "centre": the middle of the table (vision.zones.CENTRE)
  document.getElementById("player-names").replaceChildren(...names.map((p) => el("option", { value: p })));
}

function drawAll() {
  drawOverlay();
  drawList();
}

document.getElementById("add-zone").addEventListener("submit", (e) => {
  e.preventDefault();
  const name = e.target.name.value.trim();
  if (!name || !size) return;
  const n = Object.keys(zones).length;
  const [w, h] = size;
  const x = (0.08 + (n % 4) * 0.22) * w, y = (0.12 + (Math.floor(n / 4) % 3) * 0.28) * h;
  zones[name] = [[x, y], [x + 0.18 * w, y], [x + 0.18 * w, y + 0.2 * h], [x, y + 0.2 * h]].map((p) => p.map((v) => Math.round(v)));
  selected = name;
  e.target.reset();
  drawAll();
});

document.getElementById("save-zones").addEventListener("click", async () => {
  try {
    const r = await fetch("/api/zones", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": BOOT.csrf },
      body: JSON.stringify({ zones }),
    });
    const data = await r.json().catch(() => null);
    if (!r.ok) return say((data && data.error) || `HTTP ${r.status}`, false);
    say(t("zones_saved"), true);
  } catch (err) {
    say(t("offline"), false);
  }
});

// No picture: a drawn placeholder, never the browser's broken-image icon.
function showPicture(on) {
  frame.hidden = !on;
  document.getElementById("no-frame").hidden = on;
}

function refreshFrame() {
  const next = new Image();
  next.onload = () => {
    frame.src = next.src;
    showPicture(true);
    setTimeout(refreshFrame, 700);
  };
  next.onerror = () => {
    showPicture(false);
    setTimeout(refreshFrame, 2000);
  };
  next.src = "/camera/frame.jpg?t=" + Date.now();
}

async function refreshDetections() {
  try {
    const r = await fetch("/camera/detections.json", { cache: "no-store" });
    if (r.ok) {
      const data = await r.json();
      if (data.width && data.height && (!size || size[0] !== data.width || size[1] !== data.height)) {
        size = [data.width, data.height];
        const stage = document.getElementById("stage");
        stage.style.aspectRatio = `${data.width} / ${data.height}`;
        stage.style.maxWidth = `calc((100vh - 9rem) * ${data.width / data.height})`; // the whole frame on screen
        overlay.setAttribute("viewBox", `0 0 ${data.width} ${data.height}`);
      }
      detections = data.detections;
      if (!dragging) drawOverlay();
      drawSeen();
    }
  } catch (e) {
    /* the frame loop shows the camera's state */
  }
  setTimeout(refreshDetections, 700);
}

function drawState(view) {
  const box = document.getElementById("camera-state");
  box.hidden = !view.camera;
  box.className = "camera-state " + (view.camera || "");
  box.textContent = view.camera ? t("camera_" + view.camera) : "";
}

drawAll();
drawSeen();
refreshFrame();
refreshDetections();
connectLive(drawState);
