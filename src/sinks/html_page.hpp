// The --html page: the viewer's markup, style and script (src/sinks/html/, compiled in) around the
// run's data — one JSON block of facts and a base64 block per compressed array.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attnviz/analysis/head_stats.hpp"
#include "attnviz/render/colormap.hpp"

namespace attnviz::detail {

// One stored map. Its arrays, float32 unless named otherwise, base64 of zlib bytes:
//   whole maps (pool 1):  "s" scores [n_query × n_key] and "lse" each row's log-sum-exp [n_query],
//                         float64, the weights being float32(exp(s − lse)) except at the cells "ex"
//                         (uint32 indices) whose weights "ew" are given, where that is not the
//                         model's weight to the 3 digits shown — or, where such cells are many, "w"
//                         the weights; maps derived from weights (rollout) have no scores: "w" only
//   pooled maps:          "w" mean and "x" max weight per cell [cells_q × cells_k] (over the cell's
//                         allowed pairs, rounded to the 3 significant digits shown), "tk" each
//                         query's top_k strongest keys (uint32, 2³²−1 past the last), "tw" their
//                         weights to 3 digits [n_query × top_k]
//   "thumb":              max-pooled weights as float16, −1 where no pair is allowed (a picture
//   only)
struct MapRecord {
  HeadId id;
  std::string kind;
  int n_heads = 0, n_query = 0, n_key = 0, d_k = 0;
  float scale = 1.0f, softcap = 0.0f;
  bool additive = false;            // Bahdanau's additive scores: no d_k or scale to show
  std::optional<float> sink_logit;  // gpt-oss: the head's learned sink logit, or none
  int pool = 1, cells_q = 0, cells_k = 0, top_k = 0;
  int query_labels = 0, key_labels = 0;
  int mask = -1;  // index of its 0/1 plane [cells_q × cells_k] (uint8), -1: every pair allowed
  std::string mask_text;
  float vmax = 0.0f;  // the largest finite weight
  bool log = false;   // shown on a log scale first
  int thumb_q = 0, thumb_k = 0;
  std::string thumb;  // max-pooled weights [thumb_q × thumb_k]
  std::vector<std::pair<std::string, std::string>> blobs;
};

// The image pane's picture: RGB bytes [height][width][3] (blob "img"), and the patch grid.
struct PagePicture {
  int width = 0, height = 0, first = 0, rows = 0, cols = 0, patch = 0;
  std::string blob;
};

struct PageInput {
  std::string model_name, input_note;
  ColormapId cmap = ColormapId::viridis;
  const std::vector<MapRecord>* maps = nullptr;
  const std::vector<std::shared_ptr<const std::vector<std::string>>>* labels = nullptr;
  const std::vector<std::string>* mask_blobs = nullptr;
  const std::vector<std::string>* mask_names = nullptr;
  const std::vector<HeadStats>* stats = nullptr;
  double saturation = 0.99;
  std::optional<PagePicture> picture;
};

// The page, handed to `out` piece by piece (the arrays are the bulk of it: never copied into one
// string).
void render_page(const PageInput& page, const std::function<void(std::string_view)>& out);

// The viewer's parts, from src/sinks/html/ (generated into the build by cmake/embed_text.cmake):
// k_viewer_js is the page's one script, its viewer_*.js files in CMakeLists.txt's order;
// k_viewer_js_sha256 its SHA-256 in lowercase hex, computed by CMake.
extern const char* const k_viewer_body;
extern const char* const k_viewer_css;
extern const char* const k_viewer_js;
extern const char* const k_viewer_js_sha256;

}  // namespace attnviz::detail
