// Tests of figures as SVG and PDF files (render/figure_file.hpp): each is rendered back by a
// renderer that is not attnviz's — poppler's pdftoppm and librsvg's rsvg-convert
// (scripts/install-deps.sh) — and compared with the PNG the canvas drew; the PDF's text is read
// back by pdftotext, its page size by pdfinfo.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <stb/stb_image.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "attnviz/core/error.hpp"
#include "attnviz/render/drawing.hpp"
#include "attnviz/render/figure.hpp"
#include "attnviz/render/figure_file.hpp"
#include "attnviz/reports/stats_charts.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::slurp;
using attnviz::test::TempDir;

namespace {

// stdout of a shell command; fails the test when it exits non-zero.
std::string shell(const std::string& command) {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe.get())) > 0) out.append(buffer.data(), n);
  REQUIRE_MESSAGE(pclose(pipe.release()) == 0, command);
  return out;
}

Image load_png(const std::filesystem::path& path) {
  int w = 0, h = 0, n = 0;
  unsigned char* data = stbi_load(path.c_str(), &w, &h, &n, 3);
  REQUIRE_MESSAGE(data != nullptr, path.string());
  Image im;
  im.width = w, im.height = h;
  im.rgb.assign(data, data + static_cast<size_t>(w) * h * 3);
  stbi_image_free(data);
  return im;
}

void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A causal map with Chinese and Latin labels (or others), a NaN cell, printed cell values, a
// hatched triangle.
Canvas sample_figure(const std::string& title = "vector figure · 注意力",
                     const FigureStyle& style = {},
                     const std::vector<std::string>& labels = {"注意", "力", "is", "all", "you",
                                                               "need"}) {
  FigureMap m;
  const int n = 6;
  m.values = Matrix::Zero(n, n);
  m.allowed = MaskMatrix::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j)
      m.values(i, j) = 1.0f / static_cast<float>(i + 1), m.allowed(i, j) = 1;
  }
  m.values(4, 2) = std::numeric_limits<float>::quiet_NaN();
  m.n_query = m.n_key = n;
  m.query_labels = m.key_labels = labels;
  return heatmap_figure(title, "mask: causal · colour [0, 1]", m, style);
}

// The two images compared in 4 × 4 blocks (anti-aliasing by two rasterisers differs pixel by pixel,
// but a glyph, a cell or a line in another place changes its blocks' means): the mean |difference|
// of block means per channel, and the number of blocks whose mean differs by more than 40.
struct Difference {
  double mean = 0;
  long far = 0;
};
Difference difference(const Image& a, const Image& b, int k = 4) {  // k × k blocks
  Difference d;
  const int w = std::min(a.width, b.width) / k, h = std::min(a.height, b.height) / k;
  for (int by = 0; by < h; ++by) {
    for (int bx = 0; bx < w; ++bx) {
      std::array<double, 3> delta{};
      for (int y = k * by; y < k * by + k; ++y) {
        for (int x = k * bx; x < k * bx + k; ++x) {
          const Rgb p = a.at(x, y), q = b.at(x, y);
          const double n = k * k;
          delta[0] += (p.r - q.r) / n, delta[1] += (p.g - q.g) / n, delta[2] += (p.b - q.b) / n;
        }
      }
      d.mean += std::abs(delta[0]) + std::abs(delta[1]) + std::abs(delta[2]);
      if (std::max({std::abs(delta[0]), std::abs(delta[1]), std::abs(delta[2])}) > 40) ++d.far;
    }
  }
  d.mean /= 3.0 * w * h;
  return d;
}

// A glyph of 14 pixels missing from the title moves 7 blocks by more than 40 (measured: the
// control in the first case below).
bool looks_alike(const Difference& d) {
  return d.mean < 3.0 && d.far <= 5;
}

}  // namespace

TEST_CASE(
    "figure files: the PDF and the SVG rendered back by poppler and librsvg look like the PNG") {
  const Canvas figure = sample_figure();
  TempDir dir;
  const Image& png = figure.image();
  write_bytes(dir / "f.pdf", encode_figure(figure, {FigureFormat::pdf, 100.0}));
  write_bytes(dir / "f.svg", encode_figure(figure, {FigureFormat::svg, 100.0}));
  write_bytes(dir / "f.png", encode_figure(figure, {FigureFormat::png, 100.0}));
  // At the figure's own 100 dpi, a canvas pixel is a rendered pixel.
  shell("pdftoppm -r 100 -png -singlefile '" + (dir / "f.pdf").string() + "' '" +
        (dir / "pdf").string() + "'");
  shell("rsvg-convert -d 100 -p 100 -b white '" + (dir / "f.svg").string() + "' -o '" +
        (dir / "svg.png").string() + "'");
  for (const char* name : {"pdf.png", "svg.png"}) {
    CAPTURE(std::string(name));
    const Image back = load_png(dir / name);
    CHECK(std::abs(back.width - png.width) <= 1);
    CHECK(std::abs(back.height - png.height) <= 1);
    const Difference d = difference(png, back);
    MESSAGE(name, ": mean |Δ| of 4 × 4 blocks ", d.mean, ", blocks off by > 40: ", d.far);
    // Measured: PDF (poppler) 2.0 and 4 blocks, its thin hatch lines lighter; SVG (librsvg) 0.34,
    // none.
    CHECK(looks_alike(d));
    // The measure sees one glyph: the PNG of a title without its last character is not alike.
    const Canvas other = sample_figure("vector figure · 注意");
    CHECK_FALSE(looks_alike(difference(other.image(), back)));
  }
}

TEST_CASE(
    "figure files: a map's cells are one image, a pixel per cell in the PDF, sharp when rendered "
    "back") {
  // Cells of 8 pixels in alternating colours: rendered at 4× the figure's resolution each cell's
  // inside is its own colour, with no blur from its neighbours.
  Canvas c(40, 16, Rgb{255, 255, 255});
  auto cells = std::make_shared<Image>();
  cells->width = 4, cells->height = 2;
  for (int k = 0; k < 8; ++k) {
    const uint8_t v = (k % 2) ? 255 : 0;
    cells->rgb.insert(cells->rgb.end(), {v, uint8_t(255 - v), 0});
  }
  c.draw_cells(4, 0, 8, cells);
  TempDir dir;
  const std::string pdf = encode_figure(c, {FigureFormat::pdf, 100.0});
  CHECK(contains(pdf, "/Interpolate false"));
  CHECK(contains(pdf, "/Width 4"));  // the image is stored at a pixel per cell
  write_bytes(dir / "c.pdf", pdf);
  write_bytes(dir / "c.svg", encode_figure(c, {FigureFormat::svg, 100.0}));
  shell("pdftoppm -r 400 -png -singlefile '" + (dir / "c.pdf").string() + "' '" +
        (dir / "pdf").string() + "'");
  shell("rsvg-convert -d 400 -p 400 '" + (dir / "c.svg").string() + "' -o '" +
        (dir / "svg.png").string() + "'");
  for (const char* name : {"pdf.png", "svg.png"}) {
    CAPTURE(name);
    const Image back = load_png(dir / name);
    REQUIRE(back.width >= 159);
    for (int k = 0; k < 4; ++k) {
      // cell (0, k) spans x = 4 + 8k .. 12 + 8k canvas pixels = 16 + 32k .. 48 + 32k rendered;
      // inside 2 px of its edges
      for (int x = 16 + 32 * k + 2; x < 48 + 32 * k - 2; ++x) {
        const Rgb p = back.at(x, 16);
        const Rgb want = k % 2 ? Rgb{255, 0, 0} : Rgb{0, 255, 0};
        CHECK_MESSAGE(std::abs(p.r - want.r) + std::abs(p.g - want.g) <= 6, "x ", x);
      }
    }
  }
}

TEST_CASE(
    "figure files: the PDF's text is text (pdftotext reads the title, Chinese labels and ticks)") {
  TempDir dir;
  write_bytes(dir / "f.pdf", encode_figure(sample_figure(), {FigureFormat::pdf, 100.0}));
  const std::string text = shell("pdftotext '" + (dir / "f.pdf").string() + "' -");
  CHECK(contains(text, "vector figure · 注意力"));
  CHECK(contains(text, "mask: causal · colour [0, 1]"));
  CHECK(contains(text, "注意"));
  CHECK(contains(text, "need"));
  CHECK(contains(text, "queries"));
  const std::string fonts = shell("pdffonts '" + (dir / "f.pdf").string() + "'");
  CHECK(contains(fonts, "DejaVuSans"));  // the canvas's fonts, embedded
}

TEST_CASE(
    "figure files: Arabic and Hebrew labels are shaped alike in the PNG and the PDF, pdftotext "
    "reads their letters") {
  const std::vector<std::string> labels{"سلام", "abc שלום", "e\u0301", "كتاب", "x", "y"};
  const Canvas figure = sample_figure("سلام عليكم · abc", {}, labels);
  TempDir dir;
  write_bytes(dir / "f.pdf", encode_figure(figure, {FigureFormat::pdf, 100.0}));
  write_bytes(dir / "f.svg", encode_figure(figure, {FigureFormat::svg, 100.0}));
  shell("pdftoppm -r 100 -png -singlefile '" + (dir / "f.pdf").string() + "' '" +
        (dir / "pdf").string() + "'");
  shell("rsvg-convert -d 100 -p 100 -b white '" + (dir / "f.svg").string() + "' -o '" +
        (dir / "svg.png").string() + "'");
  // The control: the title's letters in the reverse logical order shape to other forms and places.
  const Canvas reversed = sample_figure("مكيلع مالس · abc", {}, labels);
  for (const char* name : {"pdf.png", "svg.png"}) {
    CAPTURE(std::string(name));
    const Image back = load_png(dir / name);
    const Difference d = difference(figure.image(), back);
    MESSAGE(name, ": mean |Δ| of 4 × 4 blocks ", d.mean, ", blocks off by > 40: ", d.far);
    CHECK(looks_alike(d));
    CHECK_FALSE(looks_alike(difference(reversed.image(), back)));
  }
  // Each glyph run maps back to its characters: right-to-left runs as backward clusters (cairo
  // writes them in logical order), the lam-alef ligature as both letters (an ActualText of U+0644
  // U+0627). pdftotext wraps right-to-left words in U+202B … U+202C, may split a word where a
  // letter does not join the next (measured: "كتا ب"), and reverses a ligature's letters inside
  // right-to-left text (measured: "سالم" for "سلام"): every letter is there, in poppler's order.
  std::string text = shell("pdftotext '" + (dir / "f.pdf").string() + "' -");
  MESSAGE("pdftotext: ", text);
  for (const std::string drop : {"\u202B", "\u202C", " "}) {
    for (size_t at = text.find(drop); at != std::string::npos; at = text.find(drop))
      text.erase(at, drop.size());
  }
  CHECK((contains(text, "سلامعليكم") || contains(text, "سالمعليكم")));
  CHECK(contains(text, "كتاب"));
  CHECK(contains(text, "abcשלום"));
  CHECK(contains(text, "e\u0301"));
}

TEST_CASE(
    "figure files: --dpi sets a PNG's pixels and pHYs, not the page, a vector page is units / 100 "
    "inches") {
  TempDir dir;
  for (const double dpi : {100.0, 300.0}) {
    CAPTURE(dpi);
    const FigureFile pdf_file{FigureFormat::pdf, dpi};
    FigureStyle style;
    style.scale = figure_scale(pdf_file);
    CHECK(style.scale.pixels == doctest::Approx(dpi / 100.0));
    const Canvas figure = sample_figure("vector figure · 注意力", style);
    // The layout is in units whatever the resolution; the image has dpi / 100 pixels per unit.
    const Canvas base = sample_figure();
    CHECK(figure.width() == base.width());
    CHECK(figure.image().width == static_cast<int>(std::lround(base.width() * dpi / 100.0)));
    write_bytes(dir / "f.pdf", encode_figure(figure, pdf_file));
    const std::string info = shell("pdfinfo '" + (dir / "f.pdf").string() + "'");
    std::smatch size;
    REQUIRE(std::regex_search(info, size, std::regex(R"(Page size:\s+([0-9.]+) x ([0-9.]+) pts)")));
    CHECK(std::stod(size[1]) == doctest::Approx(base.width() * 0.72).epsilon(1e-4));
    CHECK(std::stod(size[2]) == doctest::Approx(base.height() * 0.72).epsilon(1e-4));
    const std::string svg = encode_figure(figure, {FigureFormat::svg, dpi});
    CHECK(contains(svg, fmt::format("width=\"{:g}pt\"", base.width() * 0.72)));
    const std::string png = encode_figure(figure, {FigureFormat::png, dpi});
    const auto at = png.find("pHYs");
    REQUIRE(at != std::string::npos);
    const auto byte = [&](size_t k) {
      return static_cast<uint32_t>(static_cast<unsigned char>(png[at + 4 + k]));
    };
    const uint32_t per_metre = byte(0) << 24 | byte(1) << 16 | byte(2) << 8 | byte(3);
    CHECK(per_metre == static_cast<uint32_t>(std::lround(dpi / 0.0254)));
    CHECK(byte(8) == 1);  // unit: metre
    if (dpi == 300.0) {
      // The 300-dpi PNG is the 100-dpi PDF rendered at 300 dpi, give or take anti-aliasing.
      write_bytes(dir / "f.png", png);
      shell("pdftoppm -r 300 -png -singlefile '" + (dir / "f.pdf").string() + "' '" +
            (dir / "back").string() + "'");
      // Blocks of 4 × 4 units, as at 100 dpi.
      const Difference d = difference(load_png(dir / "f.png"), load_png(dir / "back.png"), 12);
      MESSAGE("300 dpi: mean |Δ| of 12 × 12 blocks ", d.mean, ", blocks off by > 40: ", d.far);
      CHECK(looks_alike(d));
    }
  }
  CHECK_THROWS_AS(parse_figure_format("gif"), Error);
  CHECK(figure_path("d", "layer0.self.head1", FigureFormat::svg) ==
        std::filesystem::path("d/layer0.self.head1.svg"));
}

TEST_CASE(
    "figure files: --font-size sets the labels' em size in points, the layout grows around them") {
  TempDir dir;
  // pdftotext -bbox gives each word's box in points; a label's box height is its font's line
  // height, proportional to the em size.
  const auto label_height = [&](double points) {
    FigureStyle style;
    if (points > 0) style.scale.text = text_scale_for_points(points, *FontSet::default_set());
    write_bytes(dir / "f.pdf", encode_figure(sample_figure("vector figure · 注意力", style),
                                             {FigureFormat::pdf, 100.0}));
    const std::string boxes = shell("pdftotext -bbox '" + (dir / "f.pdf").string() + "' -");
    std::smatch m;
    REQUIRE(std::regex_search(
        boxes, m, std::regex(R"re(yMin="([0-9.]+)" xMax="[0-9.]+" yMax="([0-9.]+)">causal<)re")));
    return std::stod(m[2]) - std::stod(m[1]);
  };
  const double base = label_height(0), at14 = label_height(14.0), at7 = label_height(7.0);
  CHECK(at14 / at7 == doctest::Approx(2.0).epsilon(0.02));
  // DejaVu Sans: ascent to descent (the canvas's text size) is 2384 of its 2048 em units; poppler's
  // box is the same height.
  CHECK(at14 == doctest::Approx(14.0 * 2384.0 / 2048.0).epsilon(0.02));
  CHECK(base ==
        doctest::Approx(12 * 0.72).epsilon(0.02));  // the default: 12 units ascent to descent
  FigureStyle big;
  big.scale.text = text_scale_for_points(14.0, *FontSet::default_set());
  CHECK(sample_figure("t", big).width() > sample_figure("t").width());  // the labels' column grew
}

TEST_CASE(
    "figure files: run, stats and heads write every figure as SVG or PDF, raw images stay PNG") {
  TempDir dir;
  for (const char* format : {"svg", "pdf"}) {
    CAPTURE(format);
    const std::string out = (dir / format).string();
    auto r = run_attnviz(
        std::string("run -m samples/mha -t samples/chinese.txt --causal --table none --no-heatmap "
                    "--png-raw --panel L0H0,L0H2 --figure-format ") +
        format + " --png '" + out + "'");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const std::string ext = std::string(".") + format;
    for (const std::string name :
         {"layer0.self.head0", "layer0.self.head3", "layer0.self.mask", "self.grid", "panel"}) {
      CHECK_MESSAGE(std::filesystem::file_size(dir / format / (name + ext)) > 1000, name);
      CHECK_FALSE(std::filesystem::exists(dir / format / (name + ".png")));
    }
    CHECK(std::filesystem::exists(dir / format / "layer0.self.head0.raw.png"));
    std::ifstream first(dir / format / ("layer0.self.head0" + ext));
    std::string head(5, '\0');
    first.read(head.data(), 5);
    CHECK(head == (std::string(format) == "pdf" ? "%PDF-" : "<?xml"));
    r = run_attnviz(std::string("stats -m samples/mha -t samples/english.txt --figure-format ") +
                    format + " --png '" + out + "/stats'");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(std::filesystem::exists(dir / format / "stats" / ("stats.grid.saturated" + ext)));
    CHECK(std::filesystem::exists(dir / format / "stats" / ("stats.max_weight" + ext)));
    r = run_attnviz(std::string("heads -m samples/mha -t samples/english.txt --figure-format ") +
                    format + " --png '" + out + "/heads'");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(std::filesystem::exists(dir / format / "heads" / ("heads.previous-token" + ext)));
  }
}

TEST_CASE("figure files: figure flags without --png are usage errors, not silently ignored") {
  for (const std::string& flags :
       {std::string("--figure-format svg"), std::string("--dpi 300"), std::string("--log"),
        std::string("--linear"), std::string("--png-raw"), std::string("--scale shared"),
        std::string("--max-pixels 64")}) {
    CAPTURE(flags);
    const auto r = run_attnviz("run -m samples/mha -t samples/english.txt " + flags);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "give --png DIR too"));
  }
  for (const std::string cmd : {"stats", "heads"}) {
    const auto r = run_attnviz(cmd + " -m samples/mha -t samples/english.txt --figure-format pdf");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "--figure-format sets how figures are written: give --png DIR too"));
  }
  TempDir dir;
  const auto r =
      run_attnviz("run -m samples/mha -t samples/english.txt --figure-format gif --png '" +
                  dir.path().string() + "'");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "gif"));
}

TEST_CASE(
    "figure files: the row-max histogram names its y axis and keeps the threshold apart from the "
    "series") {
  HeadStats h;
  h.id = HeadId{"", 0, Site::self, 0};
  h.heads = 1;
  const Canvas chart = max_weight_histogram_chart({h}, StatsOptions{0.99, 1.0, {}}, "t");
  bool y_axis = false, threshold = false, unscaled = false;
  for (const auto& op : chart.drawing().ops) {
    const auto* t = std::get_if<DrawText>(&op);
    if (t == nullptr) continue;
    y_axis = y_axis || (t->text == "rows" && t->up);
    threshold = threshold || t->text == "saturated: max weight ≥ 0.99";
    unscaled = unscaled || t->text == "unscaled q·k";  // its own legend entry, nothing appended
  }
  CHECK(y_axis);
  CHECK(threshold);
  CHECK(unscaled);
}

TEST_CASE(
    "figure files: --size makes per-head, mask and panel figures exactly that size, too small is "
    "refused") {
  TempDir dir;
  auto r = run_attnviz(
      "run -m samples/induction --probe repeat:20 --layer 1 --head 1 --table none --no-heatmap "
      "--panel L0H0,L1H1 --size 6.8x3in --figure-format pdf --png '" +
      (dir / "pdf").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  for (const char* name : {"layer1.self.head1.pdf", "layer1.self.mask.pdf", "panel.pdf"}) {
    CAPTURE(name);
    const std::string info = shell("pdfinfo '" + (dir / "pdf" / name).string() + "'");
    std::smatch size;
    REQUIRE(std::regex_search(info, size, std::regex(R"(Page size:\s+([0-9.]+) x ([0-9.]+) pts)")));
    CHECK(std::stod(size[1]) == doctest::Approx(6.8 * 72));
    CHECK(std::stod(size[2]) == doctest::Approx(3 * 72));
  }
  // 9 × 7.5 cm at 300 dpi: 1062 × 885 pixels (3.54 × 2.95 in, the size floored to 1/100 in).
  r = run_attnviz(
      "run -m samples/induction --probe repeat:20 --layer 1 --head 1 --table none --no-heatmap "
      "--size 9x7.5cm --dpi 300 --png '" +
      (dir / "png").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const Image png = load_png(dir / "png" / "layer1.self.head1.png");
  CHECK(png.width == 1062);
  CHECK(png.height == 885);
  r = run_attnviz(
      "run -m samples/induction --probe repeat:20 --layer 1 --head 1 --table none --no-heatmap "
      "--size 2x1.5in --png '" +
      (dir / "small").string() + "'");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "more than the 2.00 × 1.50 in (5.1 × 3.8 cm) given"));
  CHECK_FALSE(std::filesystem::exists(dir / "small"));
  for (const std::string bad : {"3x", "3x4mm", "0x3in", "200x3in", "x3"}) {
    CAPTURE(bad);
    r = run_attnviz("run -m samples/induction --probe repeat:4 --table none --no-heatmap --size " +
                    bad + " --png '" + (dir / "bad").string() + "'");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "--size " + bad));
  }
}

TEST_CASE(
    "figure files: under --size a long title wraps, flags go where they act, a failed diff leaves "
    "nothing") {
  TempDir dir;
  // A long model name: the title wraps between its parts instead of setting the width.
  const auto model = dir / "Meta-Llama-3.1-8B-Instruct-abliterated-Q4_K_M";
  std::filesystem::create_directories(model);
  for (const auto& f :
       std::filesystem::directory_iterator("tests/fixtures/planted/planted-heads")) {
    std::filesystem::copy(f.path(), model / f.path().filename());
  }
  auto r = run_attnviz("run -m '" + model.string() +
                       "' --probe repeat:8 --layer 1 --head 0 --table none --no-heatmap "
                       "--size 3.3x3.3in --figure-format pdf --png '" +
                       (dir / "long").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string text =
      shell("pdftotext -layout '" + (dir / "long" / "layer1.self.head0.pdf").string() + "' -");
  CHECK(contains(
      text, "Meta-Llama-3.1-8B-Instruct"));  // cut with "…" where one part is wider than the page
  CHECK(contains(text, "layer 1 · self · head 0"));
  // Too small: the error names the figure, in the unit given, and nothing is written.
  r = run_attnviz(
      "run -m tests/fixtures/planted/planted-heads --probe repeat:8 --layer 1 --head 0 --table "
      "none "
      "--no-heatmap --size 4x4cm --png '" +
      (dir / "small").string() + "'");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "the figure \"planted-heads · layer 1 · self"));
  CHECK(contains(r.err, "(4.0 × 4.0 cm) given"));
  CHECK_FALSE(std::filesystem::exists(dir / "small"));
  // diff draws its figures before it prints or writes anything.
  r = run_attnviz(
      "diff -m tests/fixtures/planted/planted-heads --ids '0 1 2 3 4 5 0 1 2 3 4 5' --b-ids "
      "'0 1 2 3 9 5 0 1 2 3 4 5' --top 3 --size 3x3cm --png '" +
      (dir / "diff").string() + "'");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_FALSE(std::filesystem::exists(dir / "diff"));
  // diff of two saved files takes the figure flags too.
  for (const char* run : {"a", "b"}) {
    r = run_attnviz(std::string("run -m tests/fixtures/planted/planted-heads --ids '0 1 2 3 ") +
                    (run[0] == 'a' ? "4" : "9") + " 5' --table none --no-heatmap --save '" +
                    (dir / run).string() + ".safetensors'");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  }
  r = run_attnviz("diff '" + (dir / "a.safetensors").string() + "' '" +
                  (dir / "b.safetensors").string() +
                  "' --top 1 --font-size 9 --size 4x4in --figure-format pdf --png '" +
                  (dir / "files").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // --size only where per-head maps are drawn; --font-size at most 12 (charts keep their layout).
  CHECK(run_attnviz("stats -m samples/mha -t samples/english.txt --png '" + (dir / "s").string() +
                    "' --size 3x3in")
            .exit_code == 2);
  CHECK(run_attnviz("run -m samples/mha -t samples/english.txt --png '" + (dir / "t").string() +
                    "' --font-size 13")
            .exit_code == 2);
}

TEST_CASE(
    "figure files: the colour bar is one image, with no light seam when poppler renders it at "
    "110-150 dpi") {
  const Canvas figure = sample_figure();
  const HeatmapLayout l = heatmap_figure_layout(
      "vector figure · 注意力",
      [] {
        FigureMap m;
        m.values = Matrix::Zero(6, 6);
        m.allowed = MaskMatrix::Ones(6, 6);
        m.n_query = m.n_key = 6;
        m.query_labels = m.key_labels = {"注意", "力", "is", "all", "you", "need"};
        return m;
      }(),
      {}, "mask: causal · colour [0, 1]");
  const std::string svg = encode_figure(figure, {FigureFormat::svg, 100.0});
  // The map's cells and the bar: two images; the bar is no longer a rectangle per row.
  size_t images = 0;
  for (size_t at = svg.find("<image"); at != std::string::npos; at = svg.find("<image", at + 1))
    ++images;
  CHECK(images == 2);
  size_t paths = 0;
  for (size_t at = svg.find("<path"); at != std::string::npos; at = svg.find("<path", at + 1))
    ++paths;
  CHECK_MESSAGE(paths < static_cast<size_t>(l.colorbar.h), paths, " paths for a bar ", l.colorbar.h,
                " rows high");
  TempDir dir;
  write_bytes(dir / "f.pdf", encode_figure(figure, {FigureFormat::pdf, 100.0}));
  for (const int dpi : {110, 125, 150}) {
    CAPTURE(dpi);
    const std::string stem = (dir / ("r" + std::to_string(dpi))).string();
    shell(fmt::format("pdftoppm -r {} -png -singlefile '{}' '{}'", dpi, (dir / "f.pdf").string(),
                      stem));
    const Image back = load_png(stem + ".png");
    // Inside the bar (2 px in from each edge), every pixel is a viridis colour: one channel at most
    // ~150 of 255 somewhere in the bar, never white-ish in all three (a seam between rows).
    const double k = dpi / 100.0;
    int light = 0;
    for (int y = static_cast<int>((l.colorbar.y + 2) * k);
         y < static_cast<int>((l.colorbar.y + l.colorbar.h - 2) * k); ++y) {
      const Rgb p = back.at(static_cast<int>((l.colorbar.x + l.colorbar.w / 2.0) * k), y);
      if (std::min({p.r, p.g, p.b}) > 200) ++light;
    }
    CHECK(light == 0);
  }
}

TEST_CASE(
    "figure files: a PDF holds no creation time unless SOURCE_DATE_EPOCH gives one, so runs are "
    "byte-equal") {
  const Canvas figure = sample_figure();
  unsetenv("SOURCE_DATE_EPOCH");
  const std::string first = encode_figure(figure, {FigureFormat::pdf, 100.0});
  CHECK_FALSE(contains(first, "/CreationDate"));
  CHECK(first == encode_figure(figure, {FigureFormat::pdf, 100.0}));
  setenv("SOURCE_DATE_EPOCH", "86400", 1);  // 1970-01-02T00:00:00Z
  const std::string dated = encode_figure(figure, {FigureFormat::pdf, 100.0});
  // cairo 1.16 writes the date without PDF's "D:" prefix (cairo's own bug, fixed in 1.17).
  CHECK(std::regex_search(dated, std::regex(R"(/CreationDate \((D:)?19700102000000)")));
  setenv("SOURCE_DATE_EPOCH", "yesterday", 1);
  CHECK_THROWS_WITH_AS(encode_figure(figure, {FigureFormat::pdf, 100.0}),
                       doctest::Contains("SOURCE_DATE_EPOCH = 'yesterday'"), Error);
  unsetenv("SOURCE_DATE_EPOCH");
  // Through the CLI too: two runs write the same PDF bytes.
  TempDir dir;
  for (const char* run : {"a", "b"}) {
    const auto r = run_attnviz(
        "run -m samples/mha -t samples/english.txt --layer 0 --head 0 --no-heatmap --table none "
        "--figure-format pdf --png '" +
        (dir / run).string() + "'");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  }
  CHECK(slurp(dir / "a" / "layer0.self.head0.pdf") == slurp(dir / "b" / "layer0.self.head0.pdf"));
}

TEST_CASE("figure files: a cell value that rounds to zero is printed without a sign") {
  FigureMap m;
  m.values = Matrix::Zero(3, 3);
  m.values(1, 1) = -0.0004f;  // B − A of a weight that barely moved
  m.values(2, 2) = -0.25f;
  m.allowed = MaskMatrix::Ones(3, 3);
  m.n_query = m.n_key = 3;
  FigureStyle style;
  style.cmap = ColormapId::diverging;
  style.vmin = -0.25f, style.vmax = 0.25f;
  const Canvas figure = heatmap_figure("signs", "B − A", m, style);
  std::vector<std::string> texts;
  for (const DrawOp& op : figure.drawing().ops) {
    if (const auto* t = std::get_if<DrawText>(&op)) texts.push_back(t->text);
  }
  CHECK(std::count(texts.begin(), texts.end(), "-0.00") == 0);
  CHECK(std::count(texts.begin(), texts.end(), "0.00") == 8);
  CHECK(std::count(texts.begin(), texts.end(), "-0.25") == 1);  // a real negative keeps its sign
}
