// attnviz --html viewer, part 5 of 6: the image pane of a vision model's run — the picture it read,
// each patch tinted by one query's attention (hover a patch to make it the query, click to pin it),
// and the same query's row in every head of the layer. The tint is the overlays' (--overlay): a
// patch's weight over the largest patch weight t, the pixel (1 − ½t)·grey + ½t·colour(t), grey its
// luminance dimmed to ¾. Only whole maps (not pooled) give a query's exact row.

// ---- image pane ----------------------------------------------------------------------------
const image = meta.image || null;
let picture = null;  // the picture's RGB bytes and dimmed grey, inflated once
let imageQuery = null;  // the query token the pane draws; null: its default
let imagePinned = false;
const layerRows = new Map();  // map index → its weights, for the heads of the open layer

async function pictureData() {
  if (picture) return picture;
  const rgb = await inflate(image.blob, "image");
  const n = image.width * image.height;
  if (rgb.length !== n * 3) throw new Error(`data block ${image.blob} holds ${rgb.length} bytes, expected ${n * 3}`);
  const grey = new Uint8Array(n);
  for (let p = 0; p < n; p++) grey[p] = Math.round(0.75 * (0.299 * rgb[3 * p] + 0.587 * rgb[3 * p + 1] + 0.114 * rgb[3 * p + 2]));
  picture = { rgb, grey };
  return picture;
}

// The maps the pane can draw: self-attention over the picture's tokens, stored whole.
const imageTokens = image ? image.first + image.rows * image.cols : 0;
const onImage = (m) => image && m.site === "self" && m.nQuery === imageTokens && m.nKey === imageTokens;
const defaultQuery = () => (image.first > 0 ? 0 : null);  // CLS, or the mean over the patches
const queryName = (m, q) => (q === null ? "mean of patches" : label(m.qLabels, q));

// The query's row over the keys (the mean of the patch rows when q is null).
function rowOf(m, w, q) {
  const row = new Float64Array(m.nKey);
  const rows = q === null ? Array.from({ length: image.rows * image.cols }, (_, i) => image.first + i) : [q];
  for (const r of rows) for (let k = 0; k < m.nKey; k++) row[k] += w[r * m.nKey + k];
  for (let k = 0; k < m.nKey; k++) row[k] /= rows.length;
  return row;
}

// The picture tinted by the row's patch weights, into a canvas of the picture's size.
function tint(canvas, row) {
  const { rgb, grey } = picture;
  canvas.width = image.width;
  canvas.height = image.height;
  const n = image.rows * image.cols;
  let top = 0;
  for (let i = 0; i < n; i++) { const v = row[image.first + i]; if (Number.isFinite(v) && v > top) top = v; }
  const ctx = canvas.getContext("2d");
  const out = ctx.createImageData(image.width, image.height);
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const p = y * image.width + x, r = Math.floor(y / image.patch), c = Math.floor(x / image.patch);
      const g = grey[p];
      let px = [g, g, g];
      if (r < image.rows && c < image.cols) {
        const v = row[image.first + r * image.cols + c];
        const t = top > 0 && Number.isFinite(v) ? Math.min(1, Math.max(0, v / top)) : 0;
        const heat = cmap[Math.min(255, Math.floor(t * 256))];
        px = heat.map((h) => Math.round((1 - 0.5 * t) * g + 0.5 * t * h));
      }
      out.data.set([px[0], px[1], px[2], 255], 4 * p);
    }
  }
  ctx.putImageData(out, 0, 0);
  return top;
}

// The open map's layer: every head of it on the picture's tokens, in head order.
function layerHeads(m) {
  const out = [];
  maps.forEach((o, j) => {
    if (!o.kind && !m.kind && onImage(o) && o.pool === 1 && o.stack === m.stack && o.layer === m.layer) out.push(j);
  });
  return out.sort((a, b) => maps[a].head - maps[b].head);
}

async function drawImagePane() {
  const pane = $("image-panel");
  if (!image || !cur) { pane.hidden = true; return; }
  const { m, d, i } = cur;
  pane.hidden = false;
  const note = $("image-note");
  if (!onImage(m) || m.pool !== 1) {
    $("image-view").hidden = true;
    note.textContent = !onImage(m) ? "this map is not the picture's self-attention"
      : `this map is stored pooled: a patch's own row needs every cell (--html-cells ${m.nQuery})`;
    api.image = null;
    return;
  }
  $("image-view").hidden = false;
  await pictureData();
  if (cur.i !== i) return;
  if (imageQuery === null && !imagePinned) imageQuery = defaultQuery();
  const q = imageQuery;
  const main = $("image-main");
  const top = tint(main, rowOf(m, d.w, q));
  const side = Math.max(image.width, image.height);
  main.style.width = Math.round(image.width * 320 / side) + "px";
  main.style.height = Math.round(image.height * 320 / side) + "px";
  // Every head of the layer, the same query.
  const heads = m.kind ? [] : layerHeads(m);
  for (const j of [...layerRows.keys()]) if (!heads.includes(j)) layerRows.delete(j);
  for (const j of heads) if (!layerRows.has(j)) layerRows.set(j, j === i ? d.w : (await load(j)).w);
  if (cur.i !== i) return;
  const strip = $("image-heads");
  strip.replaceChildren();
  const tops = [];
  for (const j of heads) {
    const c = document.createElement("canvas");
    c.className = "image-head" + (j === i ? " open" : "");
    c.title = shortTitle(maps[j]);
    c.dataset.index = j;
    tops.push(tint(c, rowOf(maps[j], layerRows.get(j), q)));
    c.style.width = Math.round(image.width * 96 / side) + "px";
    c.addEventListener("click", () => open(j));
    const fig = document.createElement("figure");
    fig.append(c, Object.assign(document.createElement("figcaption"), { textContent: "head " + maps[j].head }));
    strip.append(fig);
  }
  const row = rowOf(m, d.w, q);
  let prefix = "";
  for (let t = 0; t < image.first; t++) prefix += `${shown(label(m.kLabels, t), 12)} ${fmt(row[t])} · `;
  note.textContent = `query ${shown(queryName(m, q), 24)}${imagePinned ? " (pinned: click again to free)" : ""} · ${prefix}` +
    `largest patch weight ${fmt(top)} (each picture on its own scale) · hover a patch to make it the query, click to pin it`;
  api.image = { query: q, pinned: imagePinned, heads, tops };
}

function patchAt(ev) {
  const main = $("image-main"), box = main.getBoundingClientRect();
  const x = Math.floor((ev.clientX - box.left) * image.width / box.width);
  const y = Math.floor((ev.clientY - box.top) * image.height / box.height);
  const r = Math.floor(y / image.patch), c = Math.floor(x / image.patch);
  return r >= 0 && c >= 0 && r < image.rows && c < image.cols ? image.first + r * image.cols + c : null;
}
// The pane's query: a token index, or null for its default; from a test or the mouse.
api.imageQuery = async (q, pin = false) => {
  imageQuery = q === null ? defaultQuery() : q;
  imagePinned = pin;
  await drawImagePane();
};
if (image) {
  const main = $("image-main");
  main.addEventListener("mousemove", (ev) => {
    if (imagePinned) return;
    const q = patchAt(ev);
    if (q !== null && q !== imageQuery) api.imageQuery(q);
  });
  main.addEventListener("mouseleave", () => { if (!imagePinned) api.imageQuery(null); });
  main.addEventListener("click", (ev) => {
    const q = patchAt(ev);
    api.imageQuery(imagePinned || q === null ? null : q, !imagePinned && q !== null);
  });
}
// Where patch (r, c) of the pane's picture is on the page, for a real pointer (tests).
api.patchCenter = (r, c) => {
  if (!image) return null;
  const box = $("image-main").getBoundingClientRect();
  return { x: box.left + (c + 0.5) * image.patch * box.width / image.width,
           y: box.top + (r + 0.5) * image.patch * box.height / image.height };
};
