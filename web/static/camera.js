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

function drawOverlay() {
  if (!size) return;
  const unit = Math.max(size[0], size[1]) / 100; // 1% of the frame, for marks and labels
  const parts = [];
  for (const d of detections) {
    parts.push(el("svg:polygon", { class: "det", points: d.outline.map((p) => p.join(",")).join(" ") }));
    const [x, y] = d.outline[0];
    parts.push(el("svg:text", { class: "det-label", x, y: Math.max(3 * unit, y - unit), "font-size": 3 * unit }, `${d.code} ${Math.round(d.confidence * 100)}%`));
  }
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
  overlay.replaceChildren(...parts);
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

function refreshFrame() {
  const next = new Image();
  next.onload = () => {
    frame.src = next.src;
    document.getElementById("no-frame").hidden = true;
    setTimeout(refreshFrame, 700);
  };
  next.onerror = () => {
    document.getElementById("no-frame").hidden = false;
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
    }
  } catch (e) {
    /* the frame loop shows the camera's state */
  }
  setTimeout(refreshDetections, 700);
}

drawAll();
refreshFrame();
refreshDetections();
