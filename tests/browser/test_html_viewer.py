#!/usr/bin/env python3
"""The --html viewer in headless Chromium, through WebDriver: the page's contract (DOM ids, the
window.attnviz hooks, the tooltip's text) checked with a real pointer.

    test_html_viewer.py ATTNVIZ_BINARY SOURCE_DIR [--screenshot OUT.png]
    test_html_viewer.py --self-test

Case 1: a MultiHeadAttention with q/k/v/out Linears (8 heads, 10 tokens), whose weights and scores
torch computed (tests/fixtures/seeds/reference.json): the page loads with no console error and no
request but its own file; a thumbnail click opens a head; the tooltip of real pointer hovers, before
and after a zoom, shows torch's numbers (to 3 significant digits); hovering a head-view token highlights it;
the stats table has a row per head. Case 2: a random GPT-2 at 4,096 tokens: loads within 30 s,
renders a zoom within 500 ms, and names pooled blocks and masked cells. Case 3: the trained induction
sample, its induction head's weights against its script's float64 forward (samples/induction/
reference.json), a masked cell, the head view's note; --screenshot writes this page, as the README shows it.
Case 4: 1,000 tokens stored whole: a pixel of the whole view shows (and its tooltip names) the max of
the cells it covers, against --save's float32 maps. Case 5: an encoder-decoder's model view shows its
row labels ("decoder cross L0") whole. Case 6: a ViT's image pane, a real pointer over a patch, each
head's row against torch's.
--self-test: proves the checks themselves, on pages written here: one loading an http:// image and
logging console.error must fail both, a clean one must pass. Chromium missing fails (CI installs it).
Exit status 0 on pass, 1 on a failure (its message on stderr).
"""
import argparse
import array
import json
import math
import pathlib
import re
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from webdriver import Browser, WebDriverError  # noqa: E402

LOAD_TIMEOUT = 30      # seconds for data-state "ready", the 4,096-token page included
RENDER_LIMIT_MS = 500  # attnviz.lastRenderMs after a zoom of the long map
timings = {}


class Failure(Exception):
    pass


def check(ok, message):
    if not ok:
        raise Failure(message)


def wait_for(what, fn, timeout=5.0, interval=0.05):
    """Polls fn() until it returns something truthy; fails naming `what` and fn's last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failure(f"timed out after {timeout} s waiting for {what} (last: {value!r})")
        time.sleep(interval)


def wait_equal(what, fn, want, timeout=5.0):
    """Polls fn() until it returns want; fails with its last value."""
    last = []
    try:
        wait_for(what, lambda: last.append(fn()) or last[-1] == want, timeout)
    except Failure:
        raise Failure(f"timed out after {timeout} s waiting for {what} == {want!r} (last: {last[-1]!r})") from None


def run_attnviz(binary, *args, cwd=None):
    started = time.monotonic()
    r = subprocess.run([binary, *map(str, args)], cwd=cwd, capture_output=True, text=True)
    check(r.returncode == 0, f"attnviz {' '.join(map(str, args))} exited with {r.returncode}:\n{r.stderr}")
    return time.monotonic() - started


# --- page-level checks ----------------------------------------------------------------------------
def load(b, path, timeout=LOAD_TIMEOUT):
    """Opens the page and waits for data-state "ready"; returns the seconds it took."""
    url = pathlib.Path(path).resolve().as_uri()
    started = time.monotonic()
    b.navigate(url)
    state = lambda: b.execute("return document.documentElement.dataset.state")
    try:
        wait_for("data-state 'ready'", lambda: state() in ("ready", "error"), timeout, 0.1)
    except Failure:
        raise Failure(f"{path}: data-state still {state()!r} after {timeout} s (contract: 'ready')")
    if state() == "error":
        message = b.execute("return document.querySelector('#error')?.textContent")
        raise Failure(f"{path}: data-state 'error', #error: {message!r}")
    return url, time.monotonic() - started


def problems(b, page_url):
    """Console messages of level SEVERE and requests for anything but the page itself."""
    errors = [f"console {e['level']} ({e.get('source')}): {e['message']}" for e in b.console_errors()]
    allowed = lambda u: u == page_url or u.startswith(("data:", "blob:", "about:"))
    requests = [f"request: {u}" for u in b.requested_urls() if not allowed(u)]
    return errors + requests


def assert_clean(b, page_url, when):
    found = problems(b, page_url)
    check(not found, f"{when}: the page must log no error and request nothing but itself:\n  " + "\n  ".join(found))


MAP_FIELDS = ("stack", "site", "layer", "head", "nQuery", "nKey", "pool")


def page_maps(b):
    """attnviz.maps, each entry checked for the contract's fields."""
    maps = b.execute("return attnviz.maps")
    check(isinstance(maps, list) and maps, f"attnviz.maps is {maps!r}, not a non-empty array")
    for i, m in enumerate(maps):
        missing = [f for f in MAP_FIELDS if f not in m]
        check(not missing, f"attnviz.maps[{i}] lacks {', '.join(missing)} (contract: {', '.join(MAP_FIELDS)}); "
                           f"it has {', '.join(sorted(m))}")
    return maps


# --- the tooltip --------------------------------------------------------------------------------
NUMBER = r"([-+−]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|[-+−]?(?:inf(?:inity)?|∞)|nan)"


def number(text):
    return float(text.replace("−", "-").replace("∞", "inf").replace("Infinity", "inf").replace("infinity", "inf"))


def parse_tooltip(text):
    """The tooltip's facts as a dict: query, key and weight, score or masked; or, for a pooled
    cell, queries (a, b), keys (c, d), size, mean and max."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    facts = {}
    for line in lines:
        if m := re.match(r"query (\d+)\b", line):
            facts["query"] = int(m[1])
        elif m := re.match(r"key (\d+)\b", line):
            facts["key"] = int(m[1])
        elif m := re.match(r"(weight|score|mean weight|max weight) " + NUMBER + "$", line, re.I):
            facts[m[1]] = number(m[2])
        elif line == "masked":
            facts["masked"] = True
        elif line == "zoom in for each cell":
            facts["zoom"] = True
        elif m := re.match(r"queries (\d+)\s*[–-]\s*(\d+) · keys (\d+)\s*[–-]\s*(\d+) \((\d+) × (\d+) tokens\)$", line):
            facts.update(queries=(int(m[1]), int(m[2])), keys=(int(m[3]), int(m[4])), size=(int(m[5]), int(m[6])))
        else:
            raise Failure(f"tooltip line {line!r} is none of the contract's (in {text!r})")
    return facts


def move_to(b, centre, what):
    """The real pointer to a hook's {x, y}, which must lie inside the viewport."""
    width, height = b.execute("return [innerWidth, innerHeight]")
    check(centre is not None, f"{what} is null")
    check(0 <= centre["x"] < width and 0 <= centre["y"] < height,
          f"{what} = ({centre['x']:.1f}, {centre['y']:.1f}) lies outside the {width} × {height} viewport")
    b.move_pointer(centre["x"], centre["y"])


def hover_cell(b, q, k, accept, what):
    """Moves the real pointer to cell (q, k)'s centre (attnviz.cellCenter) and returns the parsed
    tooltip once it is shown and accept(facts) holds."""
    centre = b.execute("return attnviz.cellCenter(arguments[0], arguments[1])", q, k)
    move_to(b, centre, f"attnviz.cellCenter({q}, {k}) ({what}, which should be visible)")
    tooltip = b.find("#tooltip")
    seen = {}

    def shown():
        if not b.execute("return getComputedStyle(document.querySelector('#tooltip')).display !== 'none'"):
            return None
        seen["text"] = b.text(tooltip)
        try:
            facts = parse_tooltip(seen["text"])
        except Failure as e:
            seen["error"] = str(e)
            return None
        return facts if accept(facts) else None
    try:
        return wait_for(f"#tooltip for {what}", shown, timeout=3)
    except Failure:
        raise Failure(f"hovering {what} at ({centre['x']:.1f}, {centre['y']:.1f}): "
                      + (seen.get("error") or (f"tooltip {seen['text']!r}" if seen else "no tooltip shown"))) from None


def tolerance(reference):
    """|shown − torch| allowed: 3 significant digits (half a unit of the third; the page prints the
    run's float32 values) plus float32 differences between two implementations and an absolute floor."""
    a = abs(reference)
    if a < 1e-30:
        return 1e-6
    third_digit = 10 ** (math.floor(math.log10(a)) - 2)
    return 0.5 * third_digit * 1.01 + a * 1e-5 + 1e-6


def check_cell(b, head_ref, q, k, what):
    facts = hover_cell(b, q, k, lambda f: f.get("query") == q and f.get("key") == k, f"{what} cell ({q}, {k})")
    check(not facts.get("masked"), f"{what} cell ({q}, {k}) shows 'masked' in an unmasked map")
    for name, table in (("weight", "probs"), ("score", "scores")):
        check(name in facts, f"{what} cell ({q}, {k}): tooltip has no '{name}' line: {facts}")
        want = head_ref[table][q][k]
        check(abs(facts[name] - want) <= tolerance(want),
              f"{what} cell ({q}, {k}): {name} {facts[name]} but torch's is {want:.6g} (allowed ±{tolerance(want):.2g})")
    return facts


def zoom(b, q0, k0, cells):
    """attnviz.zoomTo, then two animation frames (the contract does not say whether zoomTo draws at
    once or returns a Promise); returns attnviz.lastRenderMs, cleared first so a stale one cannot pass."""
    return b.execute("""attnviz.lastRenderMs = null;
        return Promise.resolve(attnviz.zoomTo(arguments[0], arguments[1], arguments[2]))
            .then(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))))
            .then(() => attnviz.lastRenderMs);""", q0, k0, cells)


def hover_token(b, side, i):
    """A real pointer move onto token i of the head view; waits for attnviz.highlight to name it."""
    move_to(b, b.execute("return attnviz.tokenCenter(arguments[0], arguments[1])", side, i),
            f"attnviz.tokenCenter('{side}', {i})")
    wait_equal(f"attnviz.highlight after hovering {side} token {i}", lambda: b.execute("return attnviz.highlight"),
               {"side": side, "index": i}, timeout=3)


# --- case 1: an 8-head MultiHeadAttention against torch ------------------------------------------
def mha_case(b, binary, source, tmp):
    reference = json.loads((source / "tests/fixtures/seeds/reference.json").read_text())["seed000_mha"]
    html = tmp / "mha.html"
    timings["attnviz run --html (8-head MultiHeadAttention)"] = run_attnviz(
        binary, "run", *reference["args"], "--no-heatmap", "--table", "none", "--html", html, cwd=source)
    url, timings["load 8-head MultiHeadAttention"] = load(b, html)
    assert_clean(b, url, "8-head MultiHeadAttention after load")

    maps = page_maps(b)
    check(len(maps) == reference["heads"], f"attnviz.maps has {len(maps)} maps, the model {reference['heads']} heads")
    n = len(reference["x"])
    for m in maps:
        check((m["nQuery"], m["nKey"]) == (n, n), f"map {m} is not {n} × {n}")

    # A head other than the first, opened by clicking its thumbnail.
    index = 3
    thumbs = b.find_all(f'#model-view canvas.thumb[data-index="{index}"]')
    check(len(thumbs) == 1, f"#model-view has {len(thumbs)} canvas.thumb with data-index={index}")
    head = int(b.attribute(thumbs[0], "data-head"))
    check(head == maps[index]["head"], f"thumbnail {index}'s data-head {head} ≠ attnviz.maps[{index}].head {maps[index]['head']}")
    b.click(thumbs[0])
    wait_equal("attnviz.current after the thumbnail click", lambda: b.execute("return attnviz.current"), index)
    title = b.text(b.find("#head-title"))
    check(re.search(rf"\bhead {head}\b", title) and re.search(rf"\blayer {maps[index]['layer']}\b", title),
          f"#head-title {title!r} does not name layer {maps[index]['layer']} head {head}")
    head_ref = reference["per_head"][head]

    started = time.monotonic()
    cells = [(0, 0), (2, 7), (9, 9), (5, 1), (9, 0)]
    for q, k in cells:
        check_cell(b, head_ref, q, k, f"head {head}")
    timings[f"{len(cells)} hovers (pointer move → tooltip read)"] = time.monotonic() - started

    # Zoomed in on a 4 × 4 window at (4, 5) (a page may show more: its zoom has a limit): its cells
    # hover with the same numbers.
    zoom(b, 4, 5, 4)
    for q, k in [(4, 5), (7, 8), (6, 6)]:
        check_cell(b, head_ref, q, k, f"head {head} zoomed")

    # The head view: hovering a token highlights it.
    hover_token(b, "query", 7)
    hover_token(b, "key", 2)

    # The stats table: one row per head, a row click opens its head.
    rows = b.find_all("#stats-table tbody tr")
    check(len(rows) == len(maps), f"#stats-table has {len(rows)} rows in <tbody>, the page {len(maps)} heads")
    indices = sorted(int(b.attribute(r, "data-index")) for r in rows)
    check(indices == list(range(len(maps))), f"#stats-table rows' data-index are {indices}")
    b.click(b.find('#stats-table tbody tr[data-index="5"] > td'))  # its first cell: the row itself may have gaps
    wait_equal("attnviz.current after a stats-table row click", lambda: b.execute("return attnviz.current"), 5)
    assert_clean(b, url, "8-head MultiHeadAttention after the interactions")


# --- case 3: the trained induction sample against its script's float64 forward -------------------------
def induction_case(b, binary, source, tmp, screenshot):
    """samples/induction on its reference text (24 words, then the same 24 again): the induction head
    L1H1 opened from the stats table; its weights against reference.json (no scores recorded there);
    above the diagonal masked; a query of the second copy highlighted in the head view. The
    README's screenshot is this page, with the tooltip on an induction cell."""
    reference = json.loads((source / "samples/induction/reference.json").read_text())
    text = next(i for i in reference["inputs"] if i["name"] == "text")
    html = tmp / "induction.html"
    run_attnviz(binary, "run", "-m", "samples/induction", "--text", text["text"], "--no-heatmap", "--table", "none",
                "--html", html, cwd=source)
    url, _ = load(b, html)
    maps = page_maps(b)
    index = next(i for i, m in enumerate(maps) if (m["layer"], m["head"]) == (1, 1))
    b.click(b.find(f'#stats-table tbody tr[data-index="{index}"] > td'))
    wait_equal("attnviz.current after the L1H1 row click", lambda: b.execute("return attnviz.current"), index)
    probs = text["probs"][1][1]  # [query][key ≤ query], float64
    n = len(probs)
    # The second copy's query 30 repeats token 6: the induction head reads key 7, the token after it.
    for q, k in [(30, 7), (30, 30), (48, 25), (5, 0)]:
        facts = hover_cell(b, q, k, lambda f, q=q, k=k: (f.get("query"), f.get("key")) == (q, k), f"L1H1 cell ({q}, {k})")
        want = probs[q][k]
        check(abs(facts.get("weight", -1) - want) <= tolerance(want),
              f"L1H1 cell ({q}, {k}): weight {facts.get('weight')} but the reference's is {want:.6g}")
    check(probs[30][7] > 0.5, f"the sample's induction head should put most of query 30 on key 7: {probs[30][7]}")
    facts = hover_cell(b, 3, 40, lambda f: (f.get("query"), f.get("key")) == (3, 40), "L1H1 cell (3, 40)")
    check(facts.get("masked") and "weight" not in facts, f"cell (3, 40) lies above the causal diagonal: {facts}")
    hover_token(b, "query", 30)
    note = b.text(b.find("#head-view-note"))
    check(note.startswith("query 30") and " 7 " in note, f"#head-view-note for query 30 should list key 7 first: {note!r}")
    # A click pins query 30: its lines stay while the pointer is on the heatmap.
    b.execute("document.getElementById('head-view').scrollTop = 0")
    at = b.execute("return attnviz.tokenCenter('query', 30)")
    b.click_at(at["x"], at["y"])
    wait_equal("attnviz.pinned after clicking query 30", lambda: b.execute("return attnviz.pinned"),
               {"side": "query", "index": 30}, timeout=3)
    hover_cell(b, 30, 7, lambda f: (f.get("query"), f.get("key")) == (30, 7), "L1H1 cell (30, 7)")
    check(b.execute("return attnviz.highlight") == {"side": "query", "index": 30},
          f"the pinned query 30 is no longer highlighted with the pointer on the heatmap: {b.execute('return attnviz.highlight')}")
    if screenshot:  # the head view showing query 30's lines, the tooltip on the induction cell
        hover_cell(b, 30, 7, lambda f: (f.get("query"), f.get("key")) == (30, 7), "L1H1 cell (30, 7)")
        png = b.screenshot()
        check(png[:8] == b"\x89PNG\r\n\x1a\n", "the screenshot is not a PNG")
        pathlib.Path(screenshot).write_bytes(png)
        timings["screenshot size"] = "%d × %d px" % struct.unpack(">II", png[16:24])
    check(n == len(text["ids"]), f"{n} reference rows for {len(text['ids'])} ids")
    assert_clean(b, url, "induction after the interactions")


# --- case 4: a whole map longer than the heatmap is wide -------------------------------------------------
def saved_probs(path, name):
    """One [heads, n, n] float32 tensor of a --save file, as rows of Python floats (no numpy in CI)."""
    raw = pathlib.Path(path).read_bytes()
    size = struct.unpack("<Q", raw[:8])[0]
    info = json.loads(raw[8:8 + size])[name]
    begin, end = info["data_offsets"]
    values = array.array("f")
    values.frombytes(raw[8 + size + begin:8 + size + end])
    heads, n, m = info["shape"]
    return [[values[(h * n + q) * m:(h * n + q + 1) * m] for q in range(n)] for h in range(heads)]


def whole_long_case(b, binary, tmp):
    """1,000 tokens stored whole (--html-cells 1000) in a 560-pixel heatmap: a pixel covers more than a
    cell, so it must show the max of the block it covers (a peak is never skipped) and its tooltip
    must name that block; checked against --save's float32 maps."""
    n = 1000
    model = tmp / "gpt2-1000"
    (tmp / "words1000.txt").write_text(" ".join(f"w{i}" for i in range(n // 2)) + "\n")
    run_attnviz(binary, "init", "--arch", "gpt2", "--layers", 1, "--heads", 2, "--d-model", 32,
                "--max-positions", n, "--vocab", tmp / "words1000.txt", "--seed", 2, "-o", model)
    html, saved = tmp / "gpt2-1000.html", tmp / "gpt2-1000.safetensors"
    run_attnviz(binary, "run", "-m", model, "--probe", f"repeat:{n // 2}", "--no-special-tokens", "--no-heatmap",
                "--table", "none", "--html-cells", n, "--html", html, "--save", saved)
    probs = saved_probs(saved, "layer0.self.probs")[1]
    url, _ = load(b, html)
    b.execute("return attnviz.open(1)")
    maps = page_maps(b)
    check(maps[1]["pool"] == 1, f"--html-cells {n} should store the map whole: {maps[1]}")
    rect = b.execute("const r = document.querySelector('#heatmap').getBoundingClientRect(); return [r.left, r.top, r.width];")
    left, top, width = rect
    for fx, fy in [(0.2, 0.7), (0.05, 0.95), (0.5, 0.9)]:
        x, y = left + fx * width, top + fy * width
        b.move_pointer(x, y)
        facts = wait_for(f"a block tooltip at ({x:.0f}, {y:.0f})", lambda: (lambda t: parse_tooltip(t) if t else None)(
            b.execute("const t = document.querySelector('#tooltip'); return t.style.display === 'none' ? '' : t.textContent")), 3)
        check("queries" in facts and facts.get("zoom"), f"the whole view of {n} tokens: a pixel shows a block, its tooltip {facts}")
        (q0, q1), (k0, k1) = facts["queries"], facts["keys"]
        check(q1 > q0 and k1 > k0, f"a pixel of the whole view covers more than one cell: {facts}")
        allowed = [probs[q][k] for q in range(q0, q1 + 1) for k in range(k0, k1 + 1) if k <= q]
        if not allowed:
            check(facts.get("masked"), f"block {facts} lies above the diagonal: masked")
            continue
        want = max(allowed)
        check(abs(facts["max weight"] - want) <= tolerance(want), f"block {facts}: max weight {facts['max weight']}, --save's {want:.6g}")
    assert_clean(b, url, f"{n} tokens whole")


# --- case 2: 4,096 tokens -------------------------------------------------------------------------
def long_case(b, binary, tmp):
    n = 4096
    model = tmp / "gpt2-4096"
    (tmp / "words.txt").write_text(" ".join(f"w{i}" for i in range(n // 2)) + "\n")
    run_attnviz(binary, "init", "--arch", "gpt2", "--layers", 1, "--heads", 2, "--d-model", 32,
                "--max-positions", n, "--vocab", tmp / "words.txt", "--seed", 1, "-o", model)
    html = tmp / "gpt2-4096.html"
    timings[f"attnviz run --html ({n} tokens)"] = run_attnviz(
        binary, "run", "-m", model, "--probe", f"repeat:{n // 2}", "--no-special-tokens",
        "--no-heatmap", "--table", "none", "--html", html)
    timings[f"HTML size ({n} tokens)"] = f"{html.stat().st_size / 1e6:.1f} MB"
    url, timings[f"load {n} tokens"] = load(b, html)
    assert_clean(b, url, f"{n} tokens after load")

    maps = page_maps(b)
    check(len(maps) == 2 and all(m["nQuery"] == n for m in maps), f"attnviz.maps: {maps}")
    check(maps[0]["pool"] > 1, f"a {n}-token map should be pooled, attnviz.maps[0].pool is {maps[0]['pool']}")
    b.execute("return attnviz.open(1)")

    # Whole map: a pooled block around (3000, 100), within a pixel's worth of tokens.
    q, k = 3000, 100
    a, c = b.execute("return [attnviz.cellCenter(3000, 100), attnviz.cellCenter(3001, 101)]")
    slack = math.ceil(1 / max(c["x"] - a["x"], 1e-9))  # tokens per CSS pixel: the pointer lands to the nearest pixel
    near = lambda span, t, slack=slack: span[0] - slack <= t <= span[1] + slack
    facts = hover_cell(b, q, k, lambda f: "queries" in f and near(f["queries"], q) and near(f["keys"], k),
                       f"pooled block around ({q}, {k})")
    (q0, q1), (k0, k1) = facts["queries"], facts["keys"]
    check(facts["size"] == (q1 - q0 + 1, k1 - k0 + 1), f"pooled tooltip's size {facts['size']} ≠ its ranges {facts}")
    check(0 <= facts.get("mean weight", -1) <= facts.get("max weight", -1) <= 1.0005,
          f"pooled tooltip: expected 0 ≤ mean weight ≤ max weight ≤ 1: {facts}")

    # Zoomed to 64 × 64 tokens across the diagonal: lastRenderMs bounded; the cells under the pointer,
    # tokens or (stored pooled) blocks holding them; one above the diagonal masked (GPT-2 is causal).
    render_ms = zoom(b, 2000, 2000, 64)
    check(b.execute("return attnviz.cellCenter(0, 0)") is None, "after zoomTo(2000, 2000, 64), cellCenter(0, 0) should be null")
    timings["render after zoomTo (4096 tokens)"] = f"{render_ms:.1f} ms"
    check(isinstance(render_ms, (int, float)) and 0 <= render_ms < RENDER_LIMIT_MS,
          f"attnviz.lastRenderMs after zoomTo is {render_ms} (limit {RENDER_LIMIT_MS} ms)")

    def holds(q, k):
        return lambda f: (f.get("query"), f.get("key")) == (q, k) or ("queries" in f and near(f["queries"], q, 0) and near(f["keys"], k, 0))
    facts = hover_cell(b, 2040, 2010, holds(2040, 2010), "zoomed cell (2040, 2010)")
    weights = [facts[w] for w in ("weight", "mean weight", "max weight") if w in facts]
    check(weights and all(0 <= w <= 1.0005 for w in weights), f"zoomed cell (2040, 2010): weights out of [0, 1]: {facts}")
    facts = hover_cell(b, 2010, 2040, holds(2010, 2040), "masked cell (2010, 2040)")
    check(facts.get("masked") and not any("weight" in f for f in facts),
          f"cell (2010, 2040) is masked (causal) but the tooltip shows {facts}")

    timings["render of the whole map (4096 tokens)"] = f"{zoom(b, 0, 0, n):.1f} ms"

    # The head view scrolls to a token far down.
    started = time.monotonic()
    hover_token(b, "key", 4000)
    hover_token(b, "query", 17)
    timings["2 head-view hovers (4096 tokens)"] = time.monotonic() - started
    assert_clean(b, url, f"{n} tokens after the interactions")


# --- the self-test: the checks catch what they must -------------------------------------------------
BAD_PAGE = """<!doctype html><html data-state="loading"><body>
<img src="http://example.com/x.png">
<script>console.error("self-test: an error"); document.documentElement.dataset.state = "ready";</script>
</body></html>"""
CLEAN_PAGE = """<!doctype html><html data-state="loading"><body>
<script>console.log("self-test: fine"); document.documentElement.dataset.state = "ready";</script>
</body></html>"""


def encoder_decoder_case(b, binary, source, tmp):
    """samples/transformer (encoder, decoder self and cross): every row label of the model view
    ("encoder L0", "decoder cross L1") is shown whole, not clipped by its column."""
    html = tmp / "transformer.html"
    run_attnviz(binary, "run", "-m", "samples/transformer", "-t", "samples/cross/target.txt", "--source-tokens",
                "samples/cross/source.txt", "--no-heatmap", "--table", "none", "--html", html, cwd=source)
    url, _ = load(b, html)
    assert_clean(b, url, "transformer after load")
    labels = b.execute("""return [...document.querySelectorAll('#model-view .row-label')].map(
        (e) => [e.textContent, e.scrollWidth, e.clientWidth, e.getBoundingClientRect().left])""")
    check(any(text.startswith("decoder cross") for text, *_ in labels), f"no decoder cross row label: {labels}")
    for text, scroll, client, left in labels:
        check(scroll <= client and left >= 0, f"model view row label {text!r} is clipped ({scroll} px in {client} px)")
    # The head view names its sides: a cross map's target queries on the left, source keys on the right.
    maps = b.execute("return attnviz.maps")
    for site in ("self", "cross"):
        index = next(i for i, m in enumerate(maps) if m["site"] == site)
        b.execute("return attnviz.open(arguments[0])", index)
        wait_equal(f"attnviz.current after opening a {site} map", lambda: b.execute("return attnviz.current"), index)
        sides = b.text(b.find("#head-view-sides"))
        want = "target queries (left) → source keys (right)" if site == "cross" else "queries → keys"
        check(sides.startswith(want), f"the head view of a {site} map says {sides!r}, not {want!r}")


def read_safetensors(path):
    """A float32 safetensors file as {name: (shape, flat list)} (no numpy: the browser tier needs none)."""
    raw = pathlib.Path(path).read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        begin, end = info["data_offsets"]
        values = array.array("f")
        values.frombytes(raw[8 + n + begin:8 + n + end])
        out[name] = (info["shape"], values)
    return out


def vision_case(b, binary, source, tmp):
    """A ViT over a 4 x 4 patch grid (tests/fixtures/torch/hf_vit, whose maps torch computed): the image
    pane opens on CLS's row, a real pointer over patch (2, 1) makes it the query, and every head of the
    layer shows that row, its largest patch weight torch's."""
    fixture = source / "tests/fixtures/torch/hf_vit"
    html = tmp / "vit.html"
    run_attnviz(binary, "run", "-m", fixture, "--pixels", fixture / "pixels.npy", "--no-heatmap", "--table", "none",
                "--html", html)
    url, _ = load(b, html)
    assert_clean(b, url, "vit after load")
    check(b.execute("return !document.querySelector('#image-panel').hidden"), "the image pane is hidden on a ViT page")
    maps = page_maps(b)
    index = next(i for i, m in enumerate(maps) if m["layer"] == 1 and m["head"] == 2 and not m.get("kind"))
    b.execute("return attnviz.open(arguments[0])", index)
    wait_equal("attnviz.image.query on opening", lambda: (b.execute("return attnviz.image") or {}).get("query"), 0)
    b.execute("document.querySelector('#image-main').scrollIntoView()")
    first, cols = 1, 4
    move_to(b, b.execute("return attnviz.patchCenter(2, 1)"), "attnviz.patchCenter(2, 1)")
    q = first + 2 * cols + 1
    wait_equal("attnviz.image.query after hovering patch (2, 1)",
               lambda: (b.execute("return attnviz.image") or {}).get("query"), q)
    pane = b.execute("return attnviz.image")
    probs_shape, probs = read_safetensors(fixture / "expected.safetensors")["layer1.self.probs"]
    heads, n = probs_shape[0], probs_shape[1]
    check(len(pane["heads"]) == heads, f"the pane shows {len(pane['heads'])} heads of layer 1, expected {heads}")
    for h, top in enumerate(pane["tops"]):
        want = max(probs[(h * n + q) * n + k] for k in range(first, n))
        check(abs(top - want) <= tolerance(want),
              f"head {h}: the pane's largest patch weight for query {q} is {top}, torch's {want:.6g}")
    note = b.text(b.find("#image-note"))
    check(note.startswith("query p(2,1)"), f"#image-note names the query as {note!r}")
    assert_clean(b, url, "vit after hovering")


def self_test(b, tmp):
    (tmp / "bad.html").write_text(BAD_PAGE)
    (tmp / "clean.html").write_text(CLEAN_PAGE)
    url, _ = load(b, tmp / "bad.html")
    found = problems(b, url)
    check(any(p.startswith("request: http://example.com/x.png") for p in found),
          f"self-test: the http:// image on bad.html was not reported: {found}")
    check(any("self-test: an error" in p for p in found), f"self-test: console.error on bad.html was not reported: {found}")
    url, _ = load(b, tmp / "clean.html")
    found = problems(b, url)
    check(not found, f"self-test: clean.html was reported: {found}")
    print("self-test: an http:// request and a console.error were caught; a clean page passed")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("attnviz", nargs="?", help="the attnviz binary")
    parser.add_argument("source_dir", nargs="?", help="the source tree (for tests/fixtures)")
    parser.add_argument("--screenshot", help="write a PNG of the induction page here (the README's picture)")
    parser.add_argument("--self-test", action="store_true", help="only check the checks, on pages written here")
    args = parser.parse_args()
    if not args.self_test and not (args.attnviz and args.source_dir):
        parser.error("ATTNVIZ_BINARY and SOURCE_DIR are required (or --self-test)")

    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="attnviz-html-") as tmp, Browser() as b:
            timings["chromedriver + chromium start"] = time.monotonic() - started
            tmp = pathlib.Path(tmp)
            if args.self_test:
                self_test(b, tmp)
            else:
                binary = str(pathlib.Path(args.attnviz).resolve())
                source = pathlib.Path(args.source_dir).resolve()
                mha_case(b, binary, source, tmp)
                induction_case(b, binary, source, tmp, args.screenshot)
                encoder_decoder_case(b, binary, source, tmp)
                vision_case(b, binary, source, tmp)
                whole_long_case(b, binary, tmp)
                long_case(b, binary, tmp)
    except (Failure, WebDriverError) as e:
        print(f"test_html_viewer: FAIL: {e}", file=sys.stderr)
        return 1
    timings["total"] = time.monotonic() - started
    for name, value in timings.items():
        print(f"  {name}: {value:.2f} s" if isinstance(value, float) else f"  {name}: {value}")
    print("test_html_viewer: pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
