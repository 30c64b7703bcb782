// attnviz --html viewer, part 3 of 6: the zoomable heatmap — its pyramid of max levels, drawing,
// axes, colour bar, tooltip and zoom / pan.

// ---- heatmap -------------------------------------------------------------------------------
const heat = $("heatmap");
const SIZE = 560;  // CSS pixels per side
let cur = null;    // { i, m, d, levels, view }
const dpr = () => window.devicePixelRatio || 1;

// Level 0 is the stored plane (weights, or per-cell max for pooled maps); each next level the
// max of 2 × 2 cells (NaN kept), so a zoomed-out view of 4,096² tokens reads a few thousand cells.
function pyramid(m, d) {
  let w = m.cellsK, h = m.cellsQ;
  let v = d.x || d.w;
  let a = d.allowed ? Uint8Array.from(d.allowed) : null;
  const levels = [{ w, h, v, a }];
  while (w > 64 || h > 64) {
    const w2 = (w + 1) >> 1, h2 = (h + 1) >> 1;
    const v2 = new Float32Array(w2 * h2).fill(-1), a2 = a ? new Uint8Array(w2 * h2) : null;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const s = y * w + x, t = (y >> 1) * w2 + (x >> 1);
        const val = v[s];
        if (Number.isNaN(val) || Number.isNaN(v2[t])) v2[t] = NaN;
        else if (val > v2[t]) v2[t] = val;
        if (a2 && a[s]) a2[t] = 1;
      }
    }
    w = w2; h = h2; v = v2; a = a2;
    levels.push({ w, h, v, a });
  }
  return levels;
}

const levelFor = (cellsPerDevicePixel) =>
  Math.min(cur.levels.length - 1, Math.max(0, Math.ceil(Math.log2(Math.max(cellsPerDevicePixel, 1)) - 1e-9)));

function fullView(m) {
  return { x0: 0, y0: 0, cpp: Math.max(m.cellsQ, m.cellsK) / SIZE };  // cells per CSS pixel
}

function renderHeatmap() {
  const t0 = performance.now();
  const { m, levels, view } = cur;
  const r = dpr(), W = Math.round(SIZE * r), H = W;
  if (heat.width !== W) { heat.width = W; heat.height = H; }
  heat.style.width = heat.style.height = SIZE + "px";
  const ctx = heat.getContext("2d");
  const img = ctx.createImageData(W, H);
  const cppDev = view.cpp / r;
  // The level whose blocks are at least a pixel wide, so that every cell is under some pixel and a
  // peak is never skipped (each level keeps its blocks' max).
  const L = levelFor(cppDev);
  const lv = levels[L];
  const log = scaleOf(cur.i);
  const lut = new Int32Array(W);
  for (let px = 0; px < W; px++) {
    const k = Math.floor(view.x0 + (px + 0.5) * cppDev);
    lut[px] = k >= 0 && k < m.cellsK ? k >> L : -1;
  }
  const data = img.data;
  for (let py = 0; py < H; py++) {
    const q = Math.floor(view.y0 + (py + 0.5) * cppDev);
    const rowOk = q >= 0 && q < m.cellsQ;
    const base = (q >> L) * lv.w;
    for (let px = 0; px < W; px++) {
      const o = (py * W + px) * 4;
      const k = lut[px];
      let rgb;
      if (!rowOk || k < 0) rgb = [255, 255, 255];
      else if (lv.a && !lv.a[base + k]) rgb = ((px + py) & 7) < 2 ? [190, 190, 190] : [240, 240, 240];  // masked: hatched
      else {
        const v = lv.v[base + k];
        rgb = Number.isNaN(v) ? nonFinite : cmap[colourIndex(v, m.vmax, log)];
      }
      data[o] = rgb[0]; data[o + 1] = rgb[1]; data[o + 2] = rgb[2]; data[o + 3] = 255;
    }
  }
  ctx.putImageData(img, 0, 0);
  drawAxes();
  api.lastRenderMs = performance.now() - t0;
}

// Token labels along the axes once a cell is at least 9 pixels, else token indices at round steps.
function drawAxes() {
  const { m, view } = cur;
  const r = dpr();
  const keys = $("heatmap-keys"), queries = $("heatmap-queries");
  keys.width = SIZE * r; keys.style.width = SIZE + "px"; keys.height = 70 * r; keys.style.height = "70px";
  queries.height = SIZE * r; queries.style.height = SIZE + "px"; queries.width = 90 * r; queries.style.width = "90px";
  const cellPx = 1 / view.cpp;
  for (const [canvas, n, list, along] of [[keys, m.nKey, m.kLabels, "x"], [queries, m.nQuery, m.qLabels, "y"]]) {
    const ctx = canvas.getContext("2d");
    ctx.setTransform(r, 0, 0, r, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.fillStyle = "#333";
    ctx.font = "11px 'DejaVu Sans', sans-serif";
    const origin = along === "x" ? view.x0 : view.y0;
    const at = (token) => ((token / m.pool + (m.pool === 1 ? 0.5 : 0)) - origin) * cellPx;
    let step = 1;
    if (m.pool !== 1 || cellPx < 9) {
      const tokensPerPx = view.cpp * m.pool;
      const raw = tokensPerPx * 60;
      const p = 10 ** Math.floor(Math.log10(raw));
      step = [1, 2, 5, 10].map((f) => f * p).find((s) => s >= raw);
      step = Math.max(1, Math.round(step));
    }
    const first = Math.max(0, Math.floor((origin * m.pool) / step) * step);
    for (let t = first; t < n; t += step) {
      const pos = at(t);
      if (pos < 0) continue;
      if (pos > SIZE) break;
      const text = step === 1 ? shown(label(list, t), 14) : String(t);
      ctx.save();
      if (along === "x") {
        ctx.translate(pos, 66);
        ctx.rotate(-Math.PI / 3);
        ctx.textAlign = "left";
        ctx.fillText(text, 0, 4);
      } else {
        ctx.textAlign = "right";
        ctx.fillText(text, 86, pos + 4);
      }
      ctx.restore();
    }
  }
}

function drawColourbar() {
  const { m } = cur;
  const c = $("colourbar"), r = dpr();
  c.width = 72 * r; c.height = SIZE * r; c.style.width = "72px"; c.style.height = SIZE + "px";
  const ctx = c.getContext("2d");
  ctx.setTransform(r, 0, 0, r, 0, 0);
  ctx.clearRect(0, 0, 72, SIZE);
  const top = 10, bottom = SIZE - 10, h = bottom - top;
  for (let y = 0; y < h; y++) {
    const rgb = cmap[Math.min(255, Math.floor(((h - 1 - y) / h) * 256))];
    ctx.fillStyle = `rgb(${rgb})`;
    ctx.fillRect(6, top + y, 14, 1);
  }
  ctx.fillStyle = "#333";
  ctx.font = "11px 'DejaVu Sans', sans-serif";
  const log = scaleOf(cur.i);
  for (const [v, f] of colourTicks(m.vmax, log)) {
    const y = bottom - f * h;
    ctx.fillRect(20, y, 4, 1);
    ctx.fillText(v, 26, y + 4);
  }
  $("heatmap-caption").textContent =
    `colour: ${log ? `log [${fmt(m.vmax * meta.logFloor)}, ${fmt(m.vmax)}]` : `[0, ${fmt(m.vmax)}]`} head max` +
    (m.log && !log ? "" : m.log ? " · log: the default for causal maps over 32 tokens" : "") +
    (m.pool > 1 ? ` · each cell (${m.pool} × ${m.pool} tokens) drawn at its max weight` : "") +
    (m.mask >= 0 ? " · hatched: masked" : "") + " · magenta: NaN";
}

// Round ticks: linear at 1-2-5 steps from 0; log at whole decades, written 10⁻³.
function colourTicks(vmax, log) {
  if (!(vmax > 0)) return [];
  const out = [];
  if (log) {
    const lo = Math.log10(vmax * meta.logFloor), hi = Math.log10(vmax);
    const sup = (k) => String(k).replace("-", "⁻").replace(/[0-9]/g, (c) => "⁰¹²³⁴⁵⁶⁷⁸⁹"[c]);
    for (let k = Math.ceil(lo - 1e-9); k <= hi + 1e-9; k++) out.push([k === 0 ? "1" : k === 1 ? "10" : "10" + sup(k), (k - lo) / (hi - lo)]);
  } else {
    const raw = vmax / 4, p = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((f) => f * p).find((x) => x >= raw * 0.999);
    for (let i = 0; i * step <= vmax * (1 + 1e-9); i++) out.push([fmt(Number((i * step).toPrecision(6))), (i * step) / vmax]);
  }
  return out;
}

// What the pixel under the pointer draws: a stored cell, or at coarse zoom a block of 2^L × 2^L
// stored cells (its max); the same mapping as renderHeatmap's, from the device pixel's centre.
function cellAt(clientX, clientY) {
  const rect = heat.getBoundingClientRect();
  const x = clientX - rect.left, y = clientY - rect.top;
  if (x < 0 || y < 0 || x >= rect.width || y >= rect.height) return null;
  const { m, view } = cur;
  const r = dpr(), cppDev = view.cpp / r;
  const ck = Math.floor(view.x0 + (Math.floor(x * r) + 0.5) * cppDev), cq = Math.floor(view.y0 + (Math.floor(y * r) + 0.5) * cppDev);
  if (cq < 0 || cq >= m.cellsQ || ck < 0 || ck >= m.cellsK) return null;
  return { cq, ck, L: levelFor(cppDev) };
}

function tooltipText(cq, ck, L) {
  const { m, d } = cur;
  const tokens = (c0, c1, n) => [c0 * m.pool, Math.min(c1 * m.pool, n) - 1];
  if (L > 0) {  // a pixel showing a block of cells: its range and the max it is drawn at
    const lv = cur.levels[L], p = (cq >> L) * lv.w + (ck >> L);
    const [q0, q1] = tokens((cq >> L) << L, ((cq >> L) + 1) << L, m.nQuery);
    const [k0, k1] = tokens((ck >> L) << L, ((ck >> L) + 1) << L, m.nKey);
    const lines = [`queries ${q0}–${q1} · keys ${k0}–${k1} (${q1 - q0 + 1} × ${k1 - k0 + 1} tokens)`];
    if (lv.a && !lv.a[p]) lines.push("masked");
    else lines.push(`max weight ${fmt(lv.v[p])}`);
    lines.push("zoom in for each cell");
    return lines.join("\n");
  }
  const p = cq * m.cellsK + ck;
  const masked = d.allowed && !d.allowed[p];
  if (m.pool === 1) {
    const lines = [`query ${cq} ${quoted(label(m.qLabels, cq))}`, `key ${ck} ${quoted(label(m.kLabels, ck))}`];
    if (masked) lines.push("masked");
    else {
      lines.push(`weight ${fmt(d.w[p])}`);
      lines.push(d.s ? `score ${fmt(d.s[p])}` : "no score (a map derived from weights)");
    }
    // A row with no allowed key (log-sum-exp −inf) gives the sink all its weight.
    if (m.sinkLogit != null && d.lse) lines.push(`sink weight of the row ${fmt(d.lse[cq] === -Infinity ? 1 : Math.exp(m.sinkLogit - d.lse[cq]))}`);
    return lines.join("\n");
  }
  const [q0, q1] = tokens(cq, cq + 1, m.nQuery), [k0, k1] = tokens(ck, ck + 1, m.nKey);
  const lines = [`queries ${q0}–${q1} · keys ${k0}–${k1} (${q1 - q0 + 1} × ${k1 - k0 + 1} tokens)`];
  if (masked) lines.push("masked");
  else lines.push(`mean weight ${fmt(d.w[p])}`, `max weight ${fmt(d.x[p])}`);
  return lines.join("\n");
}

const tip = $("tooltip");
function showTip(e) {
  const c = cur && cellAt(e.clientX, e.clientY);
  if (!c) { tip.style.display = "none"; return; }
  tip.textContent = tooltipText(c.cq, c.ck, c.L);
  tip.style.display = "block";
  const x = Math.max(4, Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 4));
  const y = e.clientY + 14 + tip.offsetHeight > window.innerHeight - 4 ? e.clientY - 14 - tip.offsetHeight : e.clientY + 14;
  tip.style.left = x + "px";
  tip.style.top = Math.max(4, y) + "px";
}

function clampView() {
  const { m, view } = cur;
  const full = fullView(m).cpp;
  view.cpp = Math.min(full, Math.max(1 / 40, view.cpp));
  const span = SIZE * view.cpp;
  view.x0 = Math.min(Math.max(view.x0, 0), Math.max(0, m.cellsK - span));
  view.y0 = Math.min(Math.max(view.y0, 0), Math.max(0, m.cellsQ - span));
}

let drag = null;
heat.addEventListener("wheel", (e) => {
  if (!cur) return;
  e.preventDefault();
  const rect = heat.getBoundingClientRect();
  const x = e.clientX - rect.left, y = e.clientY - rect.top;
  const { view } = cur;
  const cx = view.x0 + x * view.cpp, cy = view.y0 + y * view.cpp;
  const lines = e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 400 : 1;  // DOM_DELTA_LINE / _PAGE in pixels
  view.cpp *= Math.pow(1.25, (e.deltaY * lines) / 100);
  clampView();
  view.x0 = cx - x * view.cpp;
  view.y0 = cy - y * view.cpp;
  clampView();
  renderHeatmap();
  showTip(e);
}, { passive: false });
heat.addEventListener("mousedown", (e) => { drag = { x: e.clientX, y: e.clientY }; });
window.addEventListener("mouseup", () => { drag = null; });
heat.addEventListener("mousemove", (e) => {
  if (drag && cur) {
    cur.view.x0 -= (e.clientX - drag.x) * cur.view.cpp;
    cur.view.y0 -= (e.clientY - drag.y) * cur.view.cpp;
    drag = { x: e.clientX, y: e.clientY };
    clampView();
    renderHeatmap();
  }
  showTip(e);
});
heat.addEventListener("mouseleave", () => { tip.style.display = "none"; });
heat.addEventListener("dblclick", () => { if (cur) { cur.view = fullView(cur.m); renderHeatmap(); } });

api.zoomTo = (q0, k0, cells) => {
  const m = cur.m;
  cur.view = { x0: k0 / m.pool, y0: q0 / m.pool, cpp: cells / m.pool / SIZE };
  clampView();
  renderHeatmap();
};
api.cellCenter = (q, k) => {
  const { m, view } = cur;
  const rect = heat.getBoundingClientRect();
  const x = (Math.floor(k / m.pool) + 0.5 - view.x0) / view.cpp, y = (Math.floor(q / m.pool) + 0.5 - view.y0) / view.cpp;
  if (x < 0 || y < 0 || x >= rect.width || y >= rect.height) return null;
  return { x: rect.left + x, y: rect.top + y };
};
