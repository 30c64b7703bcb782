// attnviz --html viewer, part 1 of 6 (the parts are one strict-mode closure, opened here and closed
// at the end of part 6, in the order of ATTNVIZ_VIEWER_PARTS in CMakeLists.txt; the page's CSP allows
// exactly this text by its SHA-256, so the closure is in the files rather than added around them): the
// page's facts, number formatting and labels, the data blocks (no URL is ever loaded: base64 in the
// page, inflated by the browser), and the colour map. Numbers are the run's float32 values (a whole
// map's weights rebuilt as float32(exp(score − row log-sum-exp)), which the sink checked gives the
// model's weights to the 3 digits shown), printed with 3 significant digits; only the thumbnails are
// float16 pictures.

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
