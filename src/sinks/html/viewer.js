// attnviz --html viewer: reads the page's own data blocks (no URL is ever loaded), then draws the model
// view, the zoomable heatmap, the head view and the stats table. Numbers are the run's float32 values
// (a whole map's weights recomputed as float32(exp(score − row log-sum-exp)), which the sink checked
// gives the model's weights to the 3 digits shown), printed with 3
// significant digits; only the thumbnails are float16 pictures.
"use strict";
(function () {
  const root = document.documentElement;
  const $ = (id) => document.getElementById(id);
  const meta = JSON.parse($("attnviz-meta").textContent);
  const maps = meta.maps;
  const api = (window.attnviz = { maps, current: -1, highlight: null, lastRenderMs: 0 });

  // ---- numbers -------------------------------------------------------------------------------
  // IEEE binary16 → number, every one of the 65,536 patterns.
  const F16 = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const e = (h >> 10) & 31, m = h & 1023;
    const v = e === 0 ? m * 2 ** -24 : e === 31 ? (m ? NaN : Infinity) : (1 + m / 1024) * 2 ** (e - 15);
    F16[h] = h & 0x8000 ? -v : v;
  }
  function fmt(v) {
    if (Number.isNaN(v)) return "NaN";
    if (v === Infinity) return "∞";
    if (v === -Infinity) return "−∞";
    if (v === 0) return "0";
    return v.toPrecision(3).replace(/^-/, "−");
  }
  const label = (list, i) => {
    const l = meta.labels[list];
    return l && l.length > i ? l[i] : String(i);
  };
  // A token as text that cannot disturb what surrounds it: controls (C0, C1), line and paragraph
  // separators and bidi controls escaped, long ones cut.
  const shown = (text, max = 40) => {
    const t = text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g,
      (c) => (c.charCodeAt(0) < 256 ? "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0") : "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")));
    const chars = Array.from(t);
    return chars.length > max ? chars.slice(0, max - 1).join("") + "…" : t;
  };
  // Inside a sentence: isolated, so a right-to-left token does not reorder the numbers around it.
  const quoted = (text, max) => "‹\u2068" + shown(text, max) + "\u2069›";

  // ---- data blocks ---------------------------------------------------------------------------
  async function inflate(id, what) {
    const el = $(id);
    if (!el) throw new Error(`the page lacks its data block ${id} (${what})`);
    const text = el.textContent;
    const bin = atob(text);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }
  // An array stored byte plane by byte plane (all first bytes, then all second bytes, …; little-endian).
  function typed(bytes, Type, count, id) {
    const size = Type.BYTES_PER_ELEMENT;
    if (count === null) count = bytes.byteLength / size;  // a list of any length
    if (!Number.isInteger(count) || bytes.byteLength !== count * size) {
      throw new Error(`data block ${id} holds ${bytes.byteLength} bytes, expected ${count * size}`);
    }
    if (size === 1) return new Type(bytes.buffer, bytes.byteOffset, count);
    const raw = new Uint8Array(count * size);
    for (let b = 0; b < size; b++) {
      const plane = bytes.subarray(b * count, (b + 1) * count);
      for (let i = 0, o = b; i < count; i++, o += size) raw[o] = plane[i];
    }
    return new Type(raw.buffer);
  }
  const cache = new Map();  // map index → its arrays, the last two opened
  async function load(i) {
    if (cache.has(i)) return cache.get(i);
    const m = maps[i], cells = m.cellsQ * m.cellsK, slots = m.nQuery * m.topK;
    const get = async (name, Type, count) => {
      const id = m.blobs[name];
      return id ? typed(await inflate(id, name), Type, count, id) : null;
    };
    const d = {
      w: await get("w", Float32Array, cells),
      s: await get("s", Float32Array, cells),
      lse: await get("lse", Float64Array, m.pool === 1 ? m.nQuery : 0),
      ex: m.blobs.ex ? typed(await inflate(m.blobs.ex, "ex"), Uint32Array, null, m.blobs.ex) : null,
      ew: m.blobs.ew ? typed(await inflate(m.blobs.ew, "ew"), Float32Array, null, m.blobs.ew) : null,
      x: await get("x", Float32Array, cells),
      tk: await get("tk", Uint32Array, slots),
      tw: await get("tw", Float32Array, slots),
      allowed: m.mask >= 0 ? typed(await inflate(meta.masks[m.mask].blob, "mask"), Uint8Array, cells, meta.masks[m.mask].blob) : null,
    };
    if (!d.w && d.s && d.lse) {
      // weights = float32(exp(score − lse)), a row without allowed keys all 0, then the cells where
      // that is not the model's weight to 3 digits (the sink checked each) set to the model's.
      d.w = new Float32Array(cells);
      for (let q = 0; q < m.nQuery; q++) {
        const l = d.lse[q];
        if (l === -Infinity) continue;
        for (let k = 0, p = q * m.nKey; k < m.nKey; k++, p++) d.w[p] = (!d.allowed || d.allowed[p]) ? Math.exp(d.s[p] - l) : 0;
      }
      if (d.ex) d.ex.forEach((p, n) => { d.w[p] = d.ew[n]; });
    }
    if (!d.w) throw new Error(`map ${i} has neither weights nor scores with their log-sum-exp`);
    cache.set(i, d);
    if (cache.size > 2) cache.delete(cache.keys().next().value);
    return d;
  }

  // ---- colour --------------------------------------------------------------------------------
  const cmap = meta.cmap.map((h) => [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)]);
  const nonFinite = [255, 0, 255];
  // value → entry of the colour map as attnviz's figures bin it: min(floor(t · 256), 255).
  function colourIndex(v, vmax, log) {
    if (!(vmax > 0) || !(v > 0)) return 0;
    let t;
    if (log) {
      const lo = Math.log10(vmax * meta.logFloor), hi = Math.log10(vmax);
      t = (Math.log10(v) - lo) / (hi - lo);
    } else {
      t = v / vmax;
    }
    return t <= 0 ? 0 : t >= 1 ? 255 : Math.min(255, Math.floor(t * 256));
  }
  const scaleOf = (i) => (api.scaleOverride ? api.scaleOverride === "log" : maps[i].log);

  // ---- model view ----------------------------------------------------------------------------
  const groupName = (m) => (m.stack ? m.stack + " · " : "") + m.site;
  const singleGroup = new Set(maps.map(groupName)).size === 1 && !maps[0].stack && maps[0].site === "self";
  // "layer 1 · head 3" (with the stack and site when the page has several, "· kv 1" under GQA); a
  // derived map (rollout) is named by what it is, not by a head.
  const shortTitle = (m) => {
    if (m.kind) return `${m.stack ? m.stack + " · " : ""}layer ${m.layer}${singleGroup ? "" : " · " + m.site} · ${m.kind}`;
    if (!singleGroup) return m.title;
    return `layer ${m.layer} · head ${m.head}` + (m.kvHead >= 0 ? ` · kv ${m.kvHead}` : "");
  };

  async function drawModelView() {
    const view = $("model-view");
    const heads = Math.max(...maps.map((m) => m.head)) + 1;
    view.style.gridTemplateColumns = `28px repeat(${heads}, minmax(0, 1fr))`;
    view.append(document.createElement("span"));
    for (let h = 0; h < heads; h++) view.append(Object.assign(document.createElement("span"), { className: "col-label", textContent: "H" + h }));
    const rows = new Map();  // "{stack · site} layer" → its maps by head, in the file's order
    maps.forEach((m, i) => {
      const key = groupName(m) + " " + m.layer;
      if (!rows.has(key)) rows.set(key, { m, byHead: new Map() });
      rows.get(key).byHead.set(m.head, i);
    });
    const pending = [];
    for (const { m: first, byHead } of rows.values()) {
      const text = (singleGroup ? "" : (first.stack ? first.stack + " " : "") + (first.site === "cross" ? "cross " : "")) + "L" + first.layer;
      view.append(Object.assign(document.createElement("span"), { className: "row-label", textContent: text }));
      for (let h = 0; h < heads; h++) {
        if (!byHead.has(h)) { view.append(document.createElement("span")); continue; }
        const i = byHead.get(h), m = maps[i];
        const c = document.createElement("canvas");
        c.className = "thumb";
        c.width = m.thumbK;
        c.height = m.thumbQ;
        c.title = shortTitle(m);
        c.dataset.layer = m.layer;
        c.dataset.head = m.head;
        c.dataset.index = i;
        c.addEventListener("click", () => open(i));
        view.append(c);
        pending.push(drawThumb(c, i));
      }
    }
    await Promise.all(pending);
  }

  async function drawThumb(c, i) {
    const m = maps[i];
    const t = typed(await inflate("t" + i, "thumbnail"), Uint16Array, m.thumbQ * m.thumbK, "t" + i);
    const ctx = c.getContext("2d");
    const img = ctx.createImageData(m.thumbK, m.thumbQ);
    for (let p = 0; p < t.length; p++) {
      const v = F16[t[p]];
      const x = p % m.thumbK, y = Math.floor(p / m.thumbK);
      const rgb = Number.isNaN(v) ? nonFinite : v < 0 ? (((x + y) & 3) === 0 ? [190, 190, 190] : [240, 240, 240]) : cmap[colourIndex(v, m.vmax, m.log)];
      img.data.set(rgb, p * 4);
      img.data[p * 4 + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
  }

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

  // ---- stats table ---------------------------------------------------------------------------
  function drawStats() {
    const table = $("stats-table"), st = meta.stats;
    const head = table.tHead, body = table.tBodies[0];
    const cols = ["head", "role", ...st.columns.map((c) => c.name)];
    const tr = document.createElement("tr");
    cols.forEach((name, c) => {
      const th = document.createElement("th");
      th.textContent = name;
      if (c >= 2) th.title = st.columns[c - 2].description;
      th.addEventListener("click", () => sortBy(c));
      tr.append(th);
    });
    head.append(tr);
    let order = { col: -1, desc: true };
    const rows = st.rows.map((row) => {
      const r = document.createElement("tr");
      r.dataset.index = row.map;
      const cells = [shortTitle(maps[row.map]), row.role, ...row.values.map((v) => (v === null ? "–" : fmt(v)))];
      for (const [c, text] of cells.entries()) {
        const td = document.createElement("td");
        td.textContent = text;
        if (c === 1) td.className = "role";
        r.append(td);
      }
      r.addEventListener("click", () => open(row.map));
      return { r, row };
    });
    const keyOf = (x, c) => (c === 0 ? x.row.map : c === 1 ? x.row.role : x.row.values[c - 2] ?? -Infinity);
    function sortBy(c) {
      order = { col: c, desc: order.col === c ? !order.desc : c >= 2 };
      rows.sort((a, b) => {
        const ka = keyOf(a, c), kb = keyOf(b, c);
        return (ka < kb ? -1 : ka > kb ? 1 : 0) * (order.desc ? -1 : 1);
      });
      body.replaceChildren(...rows.map((x) => x.r));
    }
    body.replaceChildren(...rows.map((x) => x.r));
    if (!st.rows.length) $("stats-panel").hidden = true;
  }

  // ---- opening a map -------------------------------------------------------------------------
  let opening = 0;  // the newest open() wins: a slower, older one must not draw over it
  async function open(i) {
    const m = maps[i];
    const ticket = ++opening;
    const d = await load(i);
    if (ticket !== opening) return;
    cur = { i, m, d, levels: pyramid(m, d), view: fullView(m) };
    api.current = i;
    api.highlight = pinned = api.pinned = null;
    $("head-title").textContent = shortTitle(m);
    const longest = Math.max(m.nQuery, m.nKey);
    const stored = m.pool === 1
      ? "stored whole (float32; values shown to 3 significant digits)"
      : `stored ${m.pool} × ${m.pool}-pooled (mean and max per cell), each query's ${m.topK} strongest keys exactly; ` +
        (longest <= 8192 ? `every cell: --html-cells ${longest}` : "maps this long are always stored pooled");
    $("head-note").textContent = `${m.nQuery} × ${m.nKey} tokens · mask: ${m.maskText}` +
      (m.kind ? "" : ` · d_k ${m.dK} · scale ${fmt(m.scale)}`) + (m.softcap ? ` · soft-cap ${fmt(m.softcap)}` : "") + ` · ${stored}`;
    for (const el of document.querySelectorAll("canvas.thumb")) el.classList.toggle("open", Number(el.dataset.index) === i);
    for (const el of document.querySelectorAll("#stats-table tbody tr")) el.classList.toggle("open", Number(el.dataset.index) === i);
    for (const el of document.querySelectorAll("input[name=scale]")) el.checked = el.value === (scaleOf(i) ? "log" : "linear");
    renderHeatmap();
    drawColourbar();
    hv.scrollTop = 0;
    drawHeadView();
  }
  api.open = open;
  for (const el of document.querySelectorAll("input[name=scale]")) {
    el.addEventListener("change", () => {
      api.scaleOverride = el.value;
      if (cur) { renderHeatmap(); drawColourbar(); }
    });
  }

  async function start() {
    $("model-name").textContent = meta.model;
    const n = maps.length;
    $("run-note").textContent = `${meta.input} · ${n} ${n === 1 ? "map" : "maps"}`;
    await drawModelView();
    drawStats();
    await open(0);
    root.dataset.state = "ready";
  }
  start().catch((err) => {
    const e = $("error");
    e.hidden = false;
    e.textContent = "attnviz viewer: " + err.message;
    root.dataset.state = "error";
    console.error(err);
  });
})();
