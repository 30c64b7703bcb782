// --html: the page's data read back as a browser would (base64 → zlib → byte planes → float16) and
// compared with hand-made maps, torch's numbers for an 8-head MultiHeadAttention, and what a page
// must never do (load a URL, let a token close its script). The page running in chromium:
// tests/browser/.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <libdeflate.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "attnviz/sinks/html_sink.hpp"
#include "emit_blocks.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::slurp;
using attnviz::test::TempDir;
using nlohmann::json;

namespace {

// The page's script text between `open` and the next "</script>".
std::string script_after(const std::string& page, const std::string& open) {
  const size_t at = page.find(open);
  REQUIRE_MESSAGE(at != std::string::npos, open);
  const size_t begin = at + open.size();
  return page.substr(begin, page.find("</script>", begin) - begin);
}

json page_meta(const std::string& page) {
  return json::parse(script_after(page, R"(<script type="application/json" id="attnviz-meta">)"));
}

std::string from_base64(const std::string& text) {
  std::string out;
  uint32_t bits = 0;
  int n = 0;
  for (const char c : text) {
    int v = -1;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    if (c >= '0' && c <= '9') v = c - '0' + 52;
    if (c == '+') v = 62;
    if (c == '/') v = 63;
    if (v < 0) continue;  // '=' padding
    bits = (bits << 6) | static_cast<uint32_t>(v);
    n += 6;
    if (n >= 8) {
      n -= 8;
      out += static_cast<char>((bits >> n) & 0xFF);
    }
  }
  return out;
}

// Blob `id`'s bytes, inflated (at most max_bytes of them).
std::string inflated(const std::string& page, const std::string& id, size_t max_bytes) {
  const std::string packed = from_base64(
      script_after(page, R"(<script type="application/octet-stream" id=")" + id + "\">"));
  std::string bytes(max_bytes, '\0');
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  size_t got = 0;
  const auto r =
      libdeflate_zlib_decompress(d, packed.data(), packed.size(), bytes.data(), bytes.size(), &got);
  libdeflate_free_decompressor(d);
  REQUIRE(r == LIBDEFLATE_SUCCESS);
  bytes.resize(got);
  return bytes;
}

// Blob `id` inflated to `count` elements of `size` bytes, the byte planes put back together.
std::vector<uint64_t> blob(const std::string& page, const std::string& id, size_t count,
                           size_t size) {
  const std::string bytes = inflated(page, id, count * size);
  REQUIRE(bytes.size() == count * size);
  std::vector<uint64_t> out(count, 0);
  for (size_t b = 0; b < size; ++b) {
    for (size_t i = 0; i < count; ++i)
      out[i] |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[b * count + i])) << (8 * b);
  }
  return out;
}

// A float32 array (its byte planes put back together).
std::vector<float> floats(const std::string& page, const std::string& id, size_t count) {
  std::vector<float> out;
  for (const uint64_t bits : blob(page, id, count, 4))
    out.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  return out;
}

// A float64 array (a whole map's row log-sum-exps).
std::vector<double> doubles(const std::string& page, const std::string& id, size_t count) {
  std::vector<double> out;
  for (const uint64_t bits : blob(page, id, count, 8)) out.push_back(std::bit_cast<double>(bits));
  return out;
}

// What the page prints for a stored score: float32(exp(s - lse)).
float page_weight(float score, double lse) {
  return static_cast<float>(std::exp(static_cast<double>(score) - lse));
}

// A whole map's weights as the page rebuilds them: float32(exp(s - lse)), then its exceptions.
std::vector<float> page_weights(const std::string& page, const json& m, int n) {
  const json blobs = m.at("blobs");
  const auto s = floats(page, blobs.at("s"), static_cast<size_t>(n * n));
  const auto lse = doubles(page, blobs.at("lse"), static_cast<size_t>(n));
  std::vector<float> w(s.size());
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      w[static_cast<size_t>(i * n + j)] =
          page_weight(s[static_cast<size_t>(i * n + j)], lse[static_cast<size_t>(i)]);
  }
  const size_t count =
      inflated(page, blobs.at("ex"), w.size() * 4).size() / 4;  // a list of any length
  const auto at = blob(page, blobs.at("ex"), count, 4);
  const auto ew = floats(page, blobs.at("ew"), count);
  for (size_t k = 0; k < count; ++k) w[at[k]] = ew[k];
  return w;
}

// The same 3 significant digits (what the tooltip prints), NaN as NaN.
bool same_digits(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return fmt::format("{:.2e}", got) == fmt::format("{:.2e}", want);
}

bool same_float(float got, float want) {
  return std::isnan(want) ? std::isnan(got) : got == want;
}

// `floor`: the error the value had before (float32 sums against torch's or a double reference).
bool near(double got, double want, double floor = 1e-7) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::abs(got - want) <= std::abs(want) * 1e-5 + floor;
}

attnviz::MapInfo map_info(int n, std::shared_ptr<const attnviz::Mask> mask) {
  attnviz::MapInfo info;
  info.id.layer = 0;
  info.id.head = 0;
  info.n_heads = 1;
  info.n_query = info.n_key = n;
  info.d_head = 4;
  info.scale = 0.5f;
  info.mask = std::move(mask);
  return info;
}

// A causal map with distinct weights: row i's scores are sin(7i + 3j) for j ≤ i, softmaxed.
void causal_map(int n, attnviz::Matrix& scores, attnviz::Matrix& probs) {
  scores = attnviz::Matrix::Constant(n, n, -std::numeric_limits<float>::infinity());
  probs = attnviz::Matrix::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    double sum = 0;
    for (int j = 0; j <= i; ++j) {
      scores(i, j) = static_cast<float>(2 * std::sin(7.0 * i + 3.0 * j));
      sum += std::exp(static_cast<double>(scores(i, j)));
    }
    for (int j = 0; j <= i; ++j)
      probs(i, j) = static_cast<float>(std::exp(static_cast<double>(scores(i, j))) / sum);
  }
}

std::string write_page(int n, int max_cells, const attnviz::Matrix& scores,
                       const attnviz::Matrix& probs, const TempDir& dir) {
  auto mask = std::make_shared<attnviz::Mask>();
  mask->causal = true;
  attnviz::HtmlOptions o;
  o.model_name = "hand-made";
  o.max_cells = max_cells;
  attnviz::HtmlSink sink(dir / "page.html", o);
  const attnviz::MapInfo info = map_info(n, mask);
  attnviz::test::emit_blocks(sink, info, scores, probs, 3);
  sink.finish();
  return slurp(dir / "page.html");
}

}  // namespace

TEST_CASE(
    "html: a whole map keeps every score as float32 and its weights as exp(score - row "
    "log-sum-exp)") {
  const int n = 7;
  attnviz::Matrix scores, probs;
  causal_map(n, scores, probs);
  const float model_weight =
      probs(5, 2) * 1.01f;  // one weight 1 % off its score's softmax: an exception
  probs(5, 2) = model_weight;
  TempDir dir;
  const std::string page = write_page(n, 512, scores, probs, dir);
  const json meta = page_meta(page);
  const json m = meta.at("maps").at(0);
  CHECK(m.at("pool") == 1);
  CHECK(m.at("cellsQ") == n);
  CHECK(m.at("log") == false);  // 7 tokens: linear, as --png
  REQUIRE_FALSE(m.at("blobs").contains("w"));
  const auto s = floats(page, m.at("blobs").at("s"), n * n);
  const auto w = page_weights(page, m, n);
  const auto allowed =
      blob(page, meta.at("masks").at(m.at("mask").get<int>()).at("blob"), n * n, 1);
  double finite_max = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const size_t p = static_cast<size_t>(i * n + j);
      CAPTURE(i);
      CAPTURE(j);
      CHECK(same_float(s[p], scores(i, j)));
      CHECK(allowed[p] == (j <= i ? 1u : 0u));
      if (j <= i) CHECK(same_digits(w[p], probs(i, j)));
      finite_max = std::max(finite_max, static_cast<double>(probs(i, j)));
    }
  }
  CHECK(w[5 * n + 2] == model_weight);  // the exception, as the model has it
  CHECK(m.at("vmax").get<double>() == doctest::Approx(finite_max).epsilon(1e-6));
  CHECK(meta.at("masks").at(0).at("text") == "causal");
}

TEST_CASE("html: a weight the model's float32 underflowed to 0 is 0 on the page too") {
  // Row 1: scores 0 and -200; exp(-200) / (1 + exp(-200)) = 1.4e-87 is 0 in float32.
  const int n = 2;
  attnviz::Matrix scores(n, n), probs(n, n);
  scores << 0.0f, -std::numeric_limits<float>::infinity(), 0.0f, -200.0f;
  probs << 1.0f, 0.0f, 1.0f, 0.0f;
  TempDir dir;
  const std::string page = write_page(n, 512, scores, probs, dir);
  const json m = page_meta(page).at("maps").at(0);
  REQUIRE(m.at("blobs").contains("lse"));
  const auto s = floats(page, m.at("blobs").at("s"), n * n);
  const auto lse = doubles(page, m.at("blobs").at("lse"), n);
  CHECK(lse[1] == doctest::Approx(std::log1p(std::exp(-200.0))));
  CHECK(page_weight(s[3], lse[1]) == 0.0f);
  CHECK(page_weight(s[2], lse[1]) == 1.0f);
}

TEST_CASE(
    "html: weights that are not the softmax of the scores are kept: a NaN row as exceptions, many "
    "as weights") {
  const int n = 7;
  attnviz::Matrix scores, probs;
  causal_map(n, scores, probs);
  probs.row(4).head(5).setConstant(std::numeric_limits<float>::quiet_NaN());  // 5 of 49 cells
  TempDir dir;
  const std::string page = write_page(n, 512, scores, probs, dir);
  const json m = page_meta(page).at("maps").at(0);
  REQUIRE(m.at("blobs").contains("lse"));
  const auto w = page_weights(page, m, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j) CHECK(same_digits(w[static_cast<size_t>(i * n + j)], probs(i, j)));
  }
  CHECK(std::isnan(w[4 * n + 2]));
  double finite_max = 0;  // the colour range: finite weights only
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (std::isfinite(probs(i, j)))
        finite_max = std::max(finite_max, static_cast<double>(probs(i, j)));
    }
  }
  CHECK(m.at("vmax").get<double>() == doctest::Approx(finite_max).epsilon(1e-6));

  // Uniform rows whatever the scores: every cell an exception, so the weights themselves are
  // stored.
  for (int i = 0; i < n; ++i)
    probs.row(i).head(i + 1).setConstant(1.0f / static_cast<float>(i + 1));
  TempDir dir2;
  const std::string uniform = write_page(n, 512, scores, probs, dir2);
  const json u = page_meta(uniform).at("maps").at(0);
  REQUIRE_FALSE(u.at("blobs").contains("lse"));
  const auto stored = floats(uniform, u.at("blobs").at("w"), n * n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      CHECK(same_float(stored[static_cast<size_t>(i * n + j)], probs(i, j)));
  }
}

TEST_CASE(
    "html: a long map is stored mean- and max-pooled to 3 digits, with each query's strongest keys "
    "exact") {
  const int n = 40,
            cells = 16;  // pool = ceil(40 / 16) = 3: 14 × 14 cells, the last covering 1 token
  attnviz::Matrix scores, probs;
  causal_map(n, scores, probs);
  TempDir dir;
  const std::string page = write_page(n, cells, scores, probs, dir);
  const json m = page_meta(page).at("maps").at(0);
  REQUIRE(m.at("pool") == 3);
  REQUIRE(m.at("cellsQ") == 14);
  CHECK(m.at("log") == true);  // causal over 32 tokens: log first, as --png
  const int c = 14, k_top = m.at("topK").get<int>();
  CHECK(k_top == 8);
  const auto mean = floats(page, m.at("blobs").at("w"), c * c);
  const auto max = floats(page, m.at("blobs").at("x"), c * c);
  for (int cq = 0; cq < c; ++cq) {
    for (int ck = 0; ck < c; ++ck) {
      double sum = 0, top = 0;
      int count = 0;
      for (int i = 3 * cq; i < std::min(n, 3 * cq + 3); ++i) {
        for (int j = 3 * ck; j < std::min(n, 3 * ck + 3); ++j) {
          if (j > i) continue;
          sum += probs(i, j);
          top = std::max(top, static_cast<double>(probs(i, j)));
          ++count;
        }
      }
      CAPTURE(cq);
      CAPTURE(ck);
      // Stored as the tooltip prints them: 3 significant digits.
      CHECK(fmt::format("{:.2e}", mean[static_cast<size_t>(cq * c + ck)]) ==
            fmt::format("{:.2e}", count ? sum / count : 0.0));
      CHECK(fmt::format("{:.2e}", max[static_cast<size_t>(cq * c + ck)]) ==
            fmt::format("{:.2e}", top));
      CHECK(near(max[static_cast<size_t>(cq * c + ck)], top, 5e-3 * top));
    }
  }
  const auto keys = blob(page, m.at("blobs").at("tk"), n * k_top, 4);
  const auto tw = floats(page, m.at("blobs").at("tw"), n * k_top);
  CHECK_FALSE(m.at("blobs").contains("ts"));
  for (int i = 0; i < n; ++i) {
    std::vector<double> row(probs.row(i).data(), probs.row(i).data() + i + 1);
    std::sort(row.rbegin(), row.rend());
    for (int slot = 0; slot < k_top; ++slot) {
      const size_t at = static_cast<size_t>(i * k_top + slot);
      CAPTURE(i);
      CAPTURE(slot);
      if (slot > i) {  // row i has i + 1 allowed keys
        CHECK(keys[at] == 0xFFFFFFFFu);
        continue;
      }
      const auto j = static_cast<uint32_t>(keys[at]);
      REQUIRE(j <= static_cast<uint32_t>(i));
      CHECK(
          probs(i, j) ==
          doctest::Approx(row[static_cast<size_t>(slot)]).epsilon(1e-6));  // the slot-th strongest
      CHECK(fmt::format("{:.2e}", tw[at]) == fmt::format("{:.2e}", probs(i, j)));
    }
  }
}

TEST_CASE(
    "html: a MultiHeadAttention with q/k/v/out Linears, every head's weights and scores are "
    "torch's") {
  // The scores as float32 (q·k of near-cancelling terms differs from torch's by ~1e-6), the weights
  // recomputed from them and the stored row log-sum-exp, as the page's tooltip does.
  std::ifstream in("tests/fixtures/seeds/reference.json");
  REQUIRE(in);
  const json ref = json::parse(in);
  const json c = ref.at("seed000_mha");
  std::string args;
  const json words = c.at("args");
  for (const auto& word : words) args += " " + word.get<std::string>();
  TempDir dir;
  const auto r = run_attnviz("run" + args + " --no-heatmap --table none --html " +
                             (dir / "mha.html").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string page = slurp(dir / "mha.html");
  const json meta = page_meta(page);
  const json maps = meta.at("maps");
  REQUIRE(maps.size() == 8);
  const json per_head = c.at("per_head");
  for (int h = 0; h < 8; ++h) {
    const json m = maps.at(h);
    CHECK(m.at("head") == h);
    const int n = m.at("nQuery").get<int>();
    const auto s = floats(page, m.at("blobs").at("s"), n * n);
    const auto w = page_weights(page, m, n);
    const json probs = per_head.at(h).at("probs");
    const json scores = per_head.at(h).at("scores");
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        CAPTURE(h);
        CAPTURE(i);
        CAPTURE(j);
        const double score = s[static_cast<size_t>(i * n + j)];
        CHECK(near(w[static_cast<size_t>(i * n + j)], probs.at(i).at(j).get<double>(), 1e-6));
        CHECK(near(score, scores.at(i).at(j).get<double>(), 1e-5));
      }
    }
  }
  // The stats table: one row per head, each naming its map.
  const json rows = meta.at("stats").at("rows");
  CHECK(rows.size() == 8);
  CHECK(rows.at(5).at("map") == 5);
}

TEST_CASE("html: the page loads no URL, and a token cannot end its script") {
  TempDir dir;
  REQUIRE(
      run_attnviz("init --arch llama --layers 1 --heads 2 --d-model 16 -o " + (dir / "m").string())
          .exit_code == 0);
  const auto r = run_attnviz(
      "run -m " + (dir / "m").string() +
      " --text '</script><img src=\"http://example.com/x\">&' --no-heatmap --table none --html " +
      (dir / "p.html").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string page = slurp(dir / "p.html");
  CHECK(contains(page, "Content-Security-Policy\" content=\"default-src 'none'"));
  CHECK_FALSE(contains(page, "http:"));
  CHECK_FALSE(contains(page, "https:"));
  CHECK_FALSE(contains(page, " src="));
  CHECK_FALSE(contains(page, " href="));
  CHECK_FALSE(contains(page, "url("));
  CHECK_FALSE(contains(page, "import("));
  // The labels hold '<' as \u003c, so the JSON block ends where the page ends it.
  const json meta = page_meta(page);
  std::string joined;
  const json labels = meta.at("labels").at(0);
  for (const auto& l : labels) joined += l.get<std::string>();
  CHECK(contains(joined, "</"));
  CHECK(contains(joined, "ttp"));  // the text is there, as labels, never as markup
}

TEST_CASE("html: rollout maps carry no scores, and --layer picks the maps stored") {
  TempDir dir;
  const auto r = run_attnviz(
      "rollout -m samples/induction --text 'dog pen milk dog pen' --no-heatmap --table none "
      "--html " +
      (dir / "r.html").string());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string page = slurp(dir / "r.html");
  const json maps = page_meta(page).at("maps");
  REQUIRE(!maps.empty());
  for (const auto& m : maps) {
    CHECK_FALSE(m.at("kind").get<std::string>().empty());
    CHECK_FALSE(m.at("blobs").contains("s"));
  }
  CHECK(page_meta(page).at("stats").at("rows").empty());

  const auto one = run_attnviz(
      "run -m samples/induction --text 'dog pen milk' --layer 1 --no-heatmap --table none --html " +
      (dir / "l1.html").string());
  REQUIRE_MESSAGE(one.exit_code == 0, one.err);
  const json l1 = page_meta(slurp(dir / "l1.html")).at("maps");
  REQUIRE(l1.size() == 2);
  for (const auto& m : l1) CHECK(m.at("layer") == 1);
}

TEST_CASE("html: bad --html and --html-cells are refused before the model runs") {
  TempDir dir;
  const auto cells = run_attnviz("run -m samples/induction --text 'dog' --html-cells 64");
  CHECK(cells.exit_code == 2);
  CHECK(contains(cells.err, "--html-cells: give --html FILE too"));
  const auto small =
      run_attnviz("run -m samples/induction --text 'dog' --html x.html --html-cells 8");
  CHECK(small.exit_code == 2);
  const auto missing = run_attnviz("run -m samples/induction --text 'dog' --html " +
                                   (dir / "no/such/p.html").string());
  CHECK(missing.exit_code != 0);
  CHECK(contains(missing.err, "--html"));
  CHECK_FALSE(std::filesystem::exists(dir / "no"));
  const auto npy =
      run_attnviz("run -m samples/induction --text 'dog' --html " + (dir / "x.npy").string());
  CHECK(npy.exit_code == 2);
  CHECK(contains(npy.err, "must end in .html or .htm"));
  const auto same = run_attnviz("run -m samples/induction --text 'dog' --html " +
                                (dir / "a.html").string() + " --save " + (dir / "a.html").string());
  CHECK(same.exit_code == 2);
  CHECK(contains(same.err, "the same file as --save"));
  CHECK_FALSE(std::filesystem::exists(dir / "a.html"));
  std::ofstream(dir / "notes.html") << "dog pen\n";  // an input whose name ends in .html survives
  const auto input =
      run_attnviz("run -m samples/induction --text-file " + (dir / "notes.html").string() +
                  " --html " + (dir / "notes.html").string());
  CHECK(input.exit_code == 2);
  CHECK(contains(input.err, "the run reads this file"));
  CHECK(slurp(dir / "notes.html") == "dog pen\n");
  const auto empty = run_attnviz("run -m samples/induction --text 'dog' --html ''");
  CHECK(empty.exit_code != 0);
  CHECK(contains(empty.err, "--html"));
}
