// attnviz --html viewer, part 2 of 6: the model view (layer × head thumbnails) and the stats table,
// each opening a map on click.

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
  // The label column as wide as its widest label ("encoder L0", "decoder cross L11"), never cut.
  view.style.gridTemplateColumns = `max-content repeat(${heads}, minmax(0, 1fr))`;
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

// ---- stats table ---------------------------------------------------------------------------
// A value of the page's JSON: a number, or "nan" / "inf" / "-inf", which JSON has no number for.
const number = (v) => (v === "nan" ? NaN : v === "inf" ? Infinity : v === "-inf" ? -Infinity : v);
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
    const cells = [shortTitle(maps[row.map]), row.role, ...row.values.map((v) => (v === null ? "–" : fmt(number(v))))];
    for (const [c, text] of cells.entries()) {
      const td = document.createElement("td");
      td.textContent = text;
      if (c === 1) td.className = "role";
      r.append(td);
    }
    r.addEventListener("click", () => open(row.map));
    return { r, row };
  });
  // NaN sorts below every number, as no value does.
  const keyOf = (x, c) => {
    if (c === 0) return x.row.map;
    if (c === 1) return x.row.role;
    const v = number(x.row.values[c - 2] ?? -Infinity);
    return Number.isNaN(v) ? -Infinity : v;
  };
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
