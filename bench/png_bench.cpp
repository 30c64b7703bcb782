// Benchmark of figure writing: 144 heads (12 layers × 12 heads) of N = 512 causal maps through
// PngSink (labelled figures + grid + mask, parallel libdeflate), then as SVG and PDF (cairo).
// Prints times and sizes.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "attnviz/sinks/png_sink.hpp"

using namespace attnviz;

namespace {

constexpr int k_layers = 12, k_heads = 12;

// softmax over j ≤ i of 4 · sin(0.01 · (i + 1) · (j + 1) · (h + 1)): the formula png_bench.sh
// uses for matplotlib, so both draw the same maps.
Matrix make_map(int n, int h) {
  Matrix p = Matrix::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    float sum = 0.0f;
    for (int j = 0; j <= i; ++j) {
      p(i, j) = std::exp(4.0f * std::sin(0.01f * static_cast<float>((i + 1) * (j + 1) * (h + 1))));
      sum += p(i, j);
    }
    p.row(i) /= sum;
  }
  return p;
}

double run(const std::filesystem::path& dir, int n, FigureFormat format, int threads,
           const std::vector<Matrix>& maps) {
  std::filesystem::remove_all(dir);
  Mask mask;
  mask.causal = true;
  auto shared_mask = std::make_shared<const Mask>(mask);
  auto labels = std::make_shared<std::vector<std::string>>();
  for (int k = 0; k < n; ++k) labels->push_back(fmt::format("tok{}", k));
  PngOptions o;
  o.model_name = "bench";
  o.threads = threads;
  o.file.format = format;
  const auto t0 = std::chrono::steady_clock::now();
  PngSink sink(dir, o);
  for (int layer = 0; layer < k_layers; ++layer) {
    for (int head = 0; head < k_heads; ++head) {
      MapInfo info;
      info.id = HeadId{"", layer, Site::self, head};
      info.n_heads = k_heads, info.n_query = n, info.n_key = n;
      info.mask = shared_mask;
      info.query_labels = labels, info.key_labels = labels;
      sink.begin_map(info);
      const Matrix& p = maps[static_cast<size_t>(head)];
      sink.on_block(AttentionBlock(info, 0, n, p, p));
      sink.end_map(info);
    }
  }
  sink.finish();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  const std::filesystem::path dir = argc > 2 ? argv[2] : "/tmp/attnviz-png-bench";
  std::vector<Matrix> maps;  // one per head index, reused across layers (compute is not measured)
  for (int h = 0; h < k_heads; ++h) maps.push_back(make_map(n, h));
  for (const FigureFormat format : {FigureFormat::png, FigureFormat::svg, FigureFormat::pdf}) {
    for (const int threads : {1, 0}) {
      const double t = run(dir, n, format, threads, maps);
      uintmax_t bytes = 0;
      for (const auto& f : std::filesystem::directory_iterator(dir)) bytes += f.file_size();
      fmt::print(
          "attnviz {} figures (+ grid, mask), {} heads at N={}, {} thread(s): {:.2f} s ({:.1f} "
          "ms/head), "
          "{:.1f} MB\n",
          figure_extension(format).substr(1), k_layers * k_heads, n,
          threads == 0 ? "hardware_concurrency" : "1", t, 1000.0 * t / (k_layers * k_heads),
          bytes / 1e6);
    }
  }
  return 0;
}
