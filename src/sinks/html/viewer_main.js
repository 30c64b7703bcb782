// attnviz --html viewer, part 6 of 6: opening a map, and the start.

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
  // Cross-attention reads the target (left) against the source (right), as BertViz's
  // encoder-decoder view draws it.
  $("head-view-sides").textContent = (m.site === "cross" ? "target queries (left) → source keys (right)"
                                                         : "queries → keys") + "; hover or click a token";
  const longest = Math.max(m.nQuery, m.nKey);
  const stored = m.pool === 1
    ? "stored whole (float32; values shown to 3 significant digits)"
    : `stored ${m.pool} × ${m.pool}-pooled (mean and max per cell), each query's ${m.topK} strongest keys exactly; ` +
      (longest <= 8192 ? `every cell: --html-cells ${longest}` : "maps this long are always stored pooled");
  $("head-note").textContent = `${m.nQuery} × ${m.nKey} tokens · mask: ${m.maskText}` +
    (m.kind ? "" : m.additive ? " · additive scores v·tanh(W s + U h) + b (Bahdanau)" : ` · d_k ${m.dK} · scale ${fmt(m.scale)}`) + (m.softcap ? ` · soft-cap ${fmt(m.softcap)}` : "") +
    (m.sinkLogit != null ? ` · sink logit ${fmt(m.sinkLogit)} (rows sum to 1 − its weight)` : "") + ` · ${stored}`;
  for (const el of document.querySelectorAll("canvas.thumb")) el.classList.toggle("open", Number(el.dataset.index) === i);
  for (const el of document.querySelectorAll("#stats-table tbody tr")) el.classList.toggle("open", Number(el.dataset.index) === i);
  for (const el of document.querySelectorAll("input[name=scale]")) el.checked = el.value === (scaleOf(i) ? "log" : "linear");
  renderHeatmap();
  drawColourbar();
  hv.scrollTop = 0;
  drawHeadView();
  await drawImagePane();
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
