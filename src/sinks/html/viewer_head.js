// attnviz --html viewer, part 4 of 6: the head view — queries and keys in two columns, a line per
// weight ≥ 1/255; hovering or clicking a token highlights its lines.

// ---- head view -----------------------------------------------------------------------------
const ROW = 18, HV_W = 300, LEFT = 120, RIGHT = 180;
const hv = $("head-view"), hvCanvas = $("head-view-canvas");
const spacer = document.createElement("div");
hv.append(spacer);

// Query q's lines: [key, weight] for every key drawn (weights under 1/255 would be invisible).
function linesOf(q) {
  const { m, d } = cur;
  const out = [];
  if (m.pool === 1) {
    const base = q * m.nKey;
    for (let k = 0; k < m.nKey; k++) {
      if (d.allowed && !d.allowed[base + k]) continue;
      const w = d.w[base + k];
      if (w >= 1 / 255 || Number.isNaN(w)) out.push([k, w]);
    }
  } else {
    for (let s = q * m.topK; s < (q + 1) * m.topK; s++) {
      if (d.tk[s] === 0xffffffff) break;
      const w = d.tw[s];
      if (w >= 1 / 255 || Number.isNaN(w)) out.push([d.tk[s], w]);
    }
  }
  return out;
}

function drawHeadView() {
  if (!cur) return;
  const { m } = cur;
  const r = dpr(), H = hv.clientHeight;
  const rows = Math.max(m.nQuery, m.nKey);
  spacer.style.height = Math.max(0, rows * ROW + 8 - H) + "px";
  hvCanvas.width = HV_W * r; hvCanvas.height = H * r;
  hvCanvas.style.width = HV_W + "px"; hvCanvas.style.height = H + "px";
  const ctx = hvCanvas.getContext("2d");
  ctx.setTransform(r, 0, 0, r, 0, 0);
  ctx.clearRect(0, 0, HV_W, H);
  const top = hv.scrollTop;
  const y = (i) => i * ROW + ROW / 2 + 4 - top;
  const first = Math.max(0, Math.floor(top / ROW) - 1), last = Math.min(rows - 1, Math.ceil((top + H) / ROW));
  const hl = api.highlight;
  ctx.lineWidth = 1.5;
  const line = (q, k, w) => {
    ctx.strokeStyle = Number.isNaN(w) ? "rgba(255,0,255,0.9)" : `rgba(31,119,180,${Math.min(1, w)})`;
    ctx.beginPath();
    ctx.moveTo(LEFT + 4, y(q));
    ctx.lineTo(RIGHT - 4, y(k));
    ctx.stroke();
  };
  let note = "";
  if (hl && hl.side === "query") {
    const ls = linesOf(hl.index);
    for (const [k, w] of ls) line(hl.index, k, w);
    ls.sort((a, b) => b[1] - a[1]);
    note = `query ${hl.index} ${quoted(label(m.qLabels, hl.index), 24)}: ` + (ls.length
      ? ls.slice(0, 5).map(([k, w]) => `${k} ${quoted(label(m.kLabels, k), 24)} ${fmt(w)}`).join(", ")
      : "no key with weight ≥ 1/255");
  } else if (hl && hl.side === "key") {
    let n = 0;
    for (let q = 0; q < m.nQuery; q++) {
      for (const [k, w] of linesOf(q)) if (k === hl.index) { line(q, k, w); n++; }
    }
    note = `key ${hl.index} ${quoted(label(m.kLabels, hl.index), 24)}: ${n} ${n === 1 ? "query attends" : "queries attend"} with weight ≥ 1/255` +
      (m.pool > 1 ? ` (among their ${m.topK} strongest keys)` : "");
  } else {
    for (let q = Math.min(first, m.nQuery); q <= Math.min(last, m.nQuery - 1); q++) for (const [k, w] of linesOf(q)) line(q, k, w);
    note = m.pool > 1 ? `lines: each query's ${m.topK} strongest keys (the map is stored pooled)` : "lines: every weight ≥ 1/255, opacity = weight";
  }
  ctx.font = "12px 'DejaVu Sans', sans-serif";
  for (let i = first; i <= last; i++) {
    for (const [side, n, list, x, align] of [["query", m.nQuery, m.qLabels, LEFT, "right"], ["key", m.nKey, m.kLabels, RIGHT, "left"]]) {
      if (i >= n) continue;
      const on = hl && hl.side === side && hl.index === i;
      ctx.fillStyle = on ? "#d62728" : "#222";
      ctx.textAlign = align;
      ctx.fillText(shown(label(list, i), 16), x, y(i) + 4);
    }
  }
  $("head-view-note").textContent = note;
}

function tokenAt(clientX, clientY) {
  if (!cur) return null;
  const rect = hvCanvas.getBoundingClientRect();
  const x = clientX - rect.left, yy = clientY - rect.top + hv.scrollTop;
  const i = Math.floor((yy - 4) / ROW);
  const side = x < (LEFT + RIGHT) / 2 ? "query" : "key";
  const n = side === "query" ? cur.m.nQuery : cur.m.nKey;
  return i >= 0 && i < n ? { side, index: i } : null;
}
// Hovering a token highlights its lines; a click pins it (shown while the pointer is elsewhere),
// a second click on it unpins.
let pinned = null;
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const highlight = (t) => { if (!same(t, api.highlight)) { api.highlight = t; drawHeadView(); } };
hvCanvas.addEventListener("mousemove", (e) => highlight(tokenAt(e.clientX, e.clientY) || pinned));
hvCanvas.addEventListener("mouseleave", () => highlight(pinned));
hvCanvas.addEventListener("click", (e) => {
  const t = tokenAt(e.clientX, e.clientY);
  pinned = same(t, pinned) ? null : t;
  api.pinned = pinned;
  highlight(t || pinned);
});
hv.addEventListener("scroll", () => drawHeadView());
// Token i's label centre in client coordinates, scrolled into view only when it is not visible.
api.tokenCenter = (side, i) => {
  const top = i * ROW, H = hv.clientHeight;
  if (top < hv.scrollTop || top + ROW > hv.scrollTop + H) hv.scrollTop = Math.max(0, top - H / 2);
  drawHeadView();
  const rect = hvCanvas.getBoundingClientRect();
  const y = i * ROW + ROW / 2 + 4 - hv.scrollTop;
  return { x: rect.left + (side === "query" ? LEFT - 20 : RIGHT + 20), y: rect.top + y };
};
