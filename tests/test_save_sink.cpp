// Tests of --save streamed to disk: the file equals the whole-map serialisation byte for byte
// (f32), f16 against hand-rounded halves, the selection, and no file after an error mid-run.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "attnviz/io/safetensors.hpp"
#include "attnviz/sinks/save_sink.hpp"
#include "temp_dir.hpp"

using namespace attnviz;

namespace {
constexpr int k_n = 5, k_heads = 2, k_layers = 2;

// A causal 5 × 5 map per (layer, head) with distinct values; masked scores -inf, probs 0.
float score_at(int layer, int head, int i, int j) {
  return j > i ? -std::numeric_limits<float>::infinity()
               : static_cast<float>(100 * layer + 10 * head + i) + 0.125f * j;
}
float prob_at(int layer, int head, int i, int j) {
  return j > i ? 0.0f : static_cast<float>(1 + layer + head + j) / 16.0f;
}

struct Gathered {  // the reference: each map's [heads, n, n] arrays, filled independently
  std::vector<std::vector<float>> scores, probs;
};

// Feeds the sink as forward does (blocks of 2 rows), returns the whole maps.
Gathered feed(SaveSink& sink, bool finish = true) {
  auto mask = std::make_shared<Mask>();
  mask->causal = true;
  const auto labels = std::make_shared<const Labels>(Labels{"a", "b", "c", "d", "e"});
  Gathered g;
  for (int layer = 0; layer < k_layers; ++layer) {
    g.scores.emplace_back(k_heads * k_n * k_n), g.probs.emplace_back(k_heads * k_n * k_n);
    for (int head = 0; head < k_heads; ++head) {
      MapInfo info;
      info.id = HeadId{"", layer, Site::self, head};
      info.n_heads = k_heads, info.n_query = k_n, info.n_key = k_n, info.d_head = 4,
      info.scale = 0.5f;
      info.mask = mask, info.query_labels = labels, info.key_labels = labels;
      sink.begin_map(info);
      Matrix s(k_n, k_n), p(k_n, k_n);
      for (int i = 0; i < k_n; ++i) {
        for (int j = 0; j < k_n; ++j) {
          s(i, j) = score_at(layer, head, i, j), p(i, j) = prob_at(layer, head, i, j);
          g.scores.back()[size_t((head * k_n + i) * k_n + j)] = s(i, j);
          g.probs.back()[size_t((head * k_n + i) * k_n + j)] = p(i, j);
        }
      }
      for (int r = 0; r < k_n; r += 2) {
        const int rows = std::min(2, k_n - r);
        sink.on_block(
            AttentionBlock(info, r, r + rows, s.middleRows(r, rows), p.middleRows(r, rows)));
      }
      sink.end_map(info);
    }
  }
  if (finish) {
    Matrix hidden(2, 3);
    hidden << 1, 2, 3, 4, 5, 6;
    sink.add_tensor("hidden", hidden);
    sink.finish();
  }
  return g;
}

// A safetensors file's header JSON without its padding, where its data starts, and the data.
struct SavedParts {
  std::string json, data;
  size_t data_start = 0;
};
SavedParts split_saved(const std::string& bytes) {
  REQUIRE(bytes.size() >= 8);
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  REQUIRE(bytes.size() >= 8 + n);
  std::string json = bytes.substr(8, n);
  json.erase(json.find_last_not_of(' ') + 1);
  return {json, bytes.substr(8 + n), 8 + n};
}

std::map<std::string, std::string> expected_metadata(int layers) {
  std::map<std::string, std::string> m;
  for (int layer = 0; layer < layers; ++layer) {
    const std::string name = "layer" + std::to_string(layer) + ".self";
    m[name + ".query_labels"] = m[name + ".key_labels"] = R"(["a","b","c","d","e"])";
    m[name + ".mask"] = "causal";
    m[name + ".scale"] = "0.5";
  }
  return m;
}
}  // namespace

TEST_CASE("save: the streamed f32 file equals the gathered maps serialised whole, byte for byte") {
  test::TempDir dir;
  SaveSink sink(dir / "maps.safetensors");
  const Gathered g = feed(sink);
  const float hidden[] = {1, 2, 3, 4, 5, 6};
  std::vector<TensorView> views;
  for (int layer = 0; layer < k_layers; ++layer) {
    const std::string name = "layer" + std::to_string(layer) + ".self";
    views.push_back({name + ".scores", {k_heads, k_n, k_n}, g.scores[size_t(layer)].data()});
    views.push_back({name + ".probs", {k_heads, k_n, k_n}, g.probs[size_t(layer)].data()});
  }
  views.push_back({"hidden", {2, 3}, hidden});
  // The same header JSON (padded further where the header was inserted in front of the streamed
  // data, to whole filesystem blocks) and the same data bytes.
  const SavedParts saved = split_saved(test::slurp(dir / "maps.safetensors"));
  const SavedParts whole = split_saved(serialize_safetensors(views, expected_metadata(k_layers)));
  CHECK(saved.json == whole.json);
  CHECK(saved.data == whole.data);
  CHECK(saved.data_start % 8 == 0);
  const SafetensorsFile file = SafetensorsFile::open(dir / "maps.safetensors");
  const Tensor probs = file.load("layer1.self.probs");
  CHECK(probs.data[size_t((1 * k_n + 3) * k_n + 2)] == prob_at(1, 1, 3, 2));
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), {}) ==
        1);  // no data file left
}

TEST_CASE("save: a folder in memory (tmpfs, no range insertion) gets the same tensors by copying") {
  const std::filesystem::path shm = "/dev/shm";
  std::error_code ec;
  if (!std::filesystem::is_directory(shm, ec) || ::access(shm.c_str(), W_OK) != 0) {
    MESSAGE("no writable /dev/shm here: the copy path is covered where it exists");
    return;
  }
  test::TempDir disk;
  const std::filesystem::path in_memory =
      shm / ("attnviz-save-" + std::to_string(::getpid()) + ".safetensors");
  {
    SaveSink a(disk / "maps.safetensors");
    feed(a);
    SaveSink b(in_memory);
    feed(b);
  }
  const SavedParts on_disk = split_saved(test::slurp(disk / "maps.safetensors"));
  const SavedParts copied = split_saved(test::slurp(in_memory));
  std::filesystem::remove(in_memory);
  CHECK(copied.json == on_disk.json);
  CHECK(copied.data == on_disk.data);
  CHECK(copied.data_start % 8 == 0);
}

TEST_CASE("save: f16 rounds to the nearest half, and values past ±65504 become ±inf") {
  test::TempDir dir;
  SaveOptions options;
  options.dtype = SaveDtype::f16;
  SaveSink sink(dir / "h.safetensors", options);
  MapInfo info;
  info.n_heads = 1, info.n_query = 1, info.n_key = 6;
  sink.begin_map(info);
  Matrix v(1, 6);
  v << 1.0f, 0.1f, 65504.0f, 65520.0f, -1e6f, 3e-8f;
  sink.on_block(AttentionBlock(info, 0, 1, v, v));
  sink.finish();
  // By hand: 1 = 0x3C00; 0.1 = 1.6 · 2^-4 → exponent 11, mantissa round(0.6 · 1024) = 614 → 0x2E66;
  // 65504 = 0x7BFF (the largest half); 65520 is halfway to 65536 and rounds to even → inf 0x7C00;
  // -1e6 → -inf 0xFC00; 3e-8 is over half of 2^-24 (the least subnormal) → 0x0001.
  const uint16_t want[] = {0x3C00, 0x2E66, 0x7BFF, 0x7C00, 0xFC00, 0x0001};
  const std::string bytes = test::slurp(dir / "h.safetensors");
  uint64_t header = 0;
  std::memcpy(&header, bytes.data(), 8);
  CHECK(bytes.substr(8, header).find(R"("dtype":"F16")") != std::string::npos);
  for (int k = 0; k < 6; ++k) {
    uint16_t got = 0;
    std::memcpy(&got, bytes.data() + 8 + header + 2 * k, 2);  // scores first
    CAPTURE(k);
    CHECK(got == want[k]);
  }
  const Tensor probs = SafetensorsFile::open(dir / "h.safetensors").load("layer0.self.probs");
  CHECK(probs.data[1] == 0.0999755859375f);  // 0x2E66 read back
  CHECK(std::isinf(probs.data[3]));
}

TEST_CASE("save: --layer and --head limit what is saved, one head as [1, n, n]") {
  test::TempDir dir;
  SaveOptions options;
  options.selection.layer = 1;
  options.selection.head = 1;
  SaveSink sink(dir / "sel.safetensors", options);
  const Gathered g = feed(sink);
  const SafetensorsFile file = SafetensorsFile::open(dir / "sel.safetensors");
  CHECK(file.find("layer0.self.probs") == nullptr);
  const Tensor probs = file.load("layer1.self.probs");
  CHECK(probs.shape == std::vector<int64_t>{1, k_n, k_n});
  const std::vector<float> head1(g.probs[1].begin() + k_n * k_n, g.probs[1].end());
  CHECK(probs.data == head1);
  CHECK(file.metadata().at("layer1.self.heads") == "[1]");
}

TEST_CASE("save: an error mid-run (the sink dropped before finish) leaves no file at all") {
  test::TempDir dir;
  {
    SaveSink sink(dir / "maps.safetensors");
    feed(sink, false);
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), {}) ==
          1);  // the data file
  }
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), {}) == 0);
}
