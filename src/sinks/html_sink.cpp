// --html: each selected map is stored as its blocks arrive — whole in float16 when it fits
// --html-cells, else mean- and max-pooled with each query's strongest keys kept exactly — and
// compressed when it ends; finish() writes the page (html_page.cpp).
#include "attnviz/sinks/html_sink.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "attnviz/core/error.hpp"
#include "attnviz/core/vector_math.hpp"
#include "attnviz/io/atomic_file.hpp"
#include "attnviz/io/half_float.hpp"
#include "html_blob.hpp"
#include "html_page.hpp"

namespace attnviz {

using detail::array_blob;

namespace {

constexpr int k_thumb_cells = 48;  // model view thumbnails: at most this many cells per side
constexpr uint32_t k_no_key = 0xFFFFFFFFu;
constexpr uint64_t k_large_page_bytes = uint64_t{1} << 30;

// A pooled cell's figure as the tooltip prints it, rounded to 3 significant digits (and so stored:
// a plane of such values packs several times tighter than float32's full mantissas). NaN, ±inf, 0
// kept. Powers of ten 10^-50 … 10^50 (a float's decimal exponents and the scales that bring 3
// digits of it to the integers), read instead of calling log10 and pow per cell.
const std::array<double, 101>& powers_of_ten() {
  static const std::array<double, 101> table = [] {
    std::array<double, 101> t{};
    for (int e = -50; e <= 50; ++e) t[static_cast<size_t>(e + 50)] = std::pow(10.0, e);
    return t;
  }();
  return table;
}

float three_digits(float x) {
  if (!std::isfinite(x) || x == 0.0f) return x;
  const auto& p10 = powers_of_ten();
  const double v = x, a = std::abs(v);
  int exponent2 = 0;
  std::frexp(a, &exponent2);  // a in [2^(e2-1), 2^e2)
  int e = static_cast<int>(
      std::floor((exponent2 - 1) * 0.30102999566398120));  // ≤ floor(log10 a), at most 1 short
  while (e < 38 && a >= p10[static_cast<size_t>(e + 51)]) ++e;  // now 10^e ≤ a < 10^(e+1)
  const double scale = p10[static_cast<size_t>(2 - e + 50)];
  return static_cast<float>(std::round(v * scale) / scale);  // ties away from 0, as JS toPrecision
}

std::vector<float> three_digit_plane(const Matrix& m) {
  std::vector<float> out(static_cast<size_t>(m.size()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = three_digits(m.data()[i]);
  return out;
}

// A thumbnail's cells as float16 (a picture: no number of it is shown), -1 where no pair is allowed
// (drawn hatched, as the heatmap's masked cells).
std::vector<uint16_t> thumbnail_cells(const Matrix& m, const CountMatrix& counts) {
  std::vector<uint16_t> out(static_cast<size_t>(m.size()));
  f32_to_f16_n(m.data(), out.data(), out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    if (counts.data()[i] == 0) out[i] = f32_to_f16(-1.0f);
  }
  return out;
}

// Ranks a weight for the strongest-keys list: NaN first (a NaN row must show), then by value.
float rank_of(float p) {
  return std::isnan(p) ? std::numeric_limits<float>::infinity() : p;
}

}  // namespace

struct HtmlSink::Current {
  Current(const MapInfo& map, const PoolGrid& g, int k)
      : info(map),
        grid(g),
        thumb(PoolGrid::for_map(map.n_query, map.n_key, k_thumb_cells), false),
        top_k(k) {
    const auto cells = static_cast<size_t>(grid.cells_q) * static_cast<size_t>(grid.cells_k);
    if (grid.pool == 1) {
      weights.resize(cells);
      if (info.kind.empty()) {
        scores.resize(cells);
        lse.resize(static_cast<size_t>(info.n_query));
      }
    } else {
      pooled.emplace(grid, true);
      const auto slots = static_cast<size_t>(info.n_query) * static_cast<size_t>(top_k);
      top_keys.assign(slots, k_no_key);
      top_weights.assign(slots, 0.0f);
    }
  }

  // Row i's log-sum-exp over its allowed scores, in double, so that its weights are exp(s - lse):
  // NaN when an allowed score is NaN or +inf (the row's weights are NaN, as PyTorch's), -inf when
  // no key is allowed. Every weight the page would print — float32(exp(s - lse)) to 3 significant
  // digits, 0 in a row with no allowed key — that is not the model's weight to 3 digits (a rounding
  // at a digit's edge, 455 of 18.9 million cells at N = 512 on a GPT-2-small shape; a row left NaN
  // some other way) is kept as an exception.
  void keep_lse(int i, const float* s, const float* p) {
    const auto [lo, hi] = info.mask->key_range(i, info.n_key);
    const auto allowed = [&](int j) {
      return !info.mask->matrix || (*info.mask->matrix)(i, j) != 0;
    };
    // A sink logit σ (gpt-oss) is one more term of the sum: the page's weights exp(s − lse) then
    // leave out the sink's share, exp(σ − lse), as the model's do.
    const auto sink = info.sink_logit;
    double top = -std::numeric_limits<double>::infinity();
    bool non_finite = sink && (std::isnan(*sink) || std::isinf(*sink));
    for (int j = lo; j < hi; ++j) {
      if (!allowed(j)) continue;
      if (std::isnan(s[j]) || s[j] == std::numeric_limits<float>::infinity()) non_finite = true;
      top = std::max(top, static_cast<double>(s[j]));
    }
    if (sink && std::isfinite(top)) top = std::max(top, static_cast<double>(*sink));
    double sum = 0.0;
    if (!non_finite && std::isfinite(top)) {
      if (sink) sum += std::exp(static_cast<double>(*sink) - top);
      for (int j = lo; j < hi; ++j) {
        if (allowed(j)) sum += std::exp(static_cast<double>(s[j]) - top);
      }
    }
    const double l = non_finite           ? std::numeric_limits<double>::quiet_NaN()
                     : std::isfinite(top) ? top + std::log(sum)
                                          : top;
    lse[static_cast<size_t>(i)] = l;
    for (int j = lo; j < hi; ++j) {
      if (!allowed(j)) continue;
      const float w = l == -std::numeric_limits<double>::infinity()
                          ? 0.0f
                          : static_cast<float>(std::exp(static_cast<double>(s[j]) - l));
      if (std::isnan(w) && std::isnan(p[j])) continue;
      if (three_digits(w) != three_digits(p[j]) || std::isnan(w) != std::isnan(p[j])) {
        exception_at.push_back(static_cast<uint32_t>(
            static_cast<size_t>(i) * static_cast<size_t>(info.n_key) + static_cast<size_t>(j)));
        exception_weight.push_back(p[j]);
      }
    }
  }

  // Query i's top_k strongest allowed keys, strongest first, into its slots.
  void keep_strongest(int i, const float* p) {
    const auto [lo, hi] = info.mask->key_range(i, info.n_key);
    std::vector<std::pair<float, int>>& best = scratch;
    best.clear();
    for (int j = lo; j < hi; ++j) {
      if (!(p[j] > 0.0f) && !std::isnan(p[j])) continue;  // 0: masked, or a line nobody could see
      if (info.mask->matrix && (*info.mask->matrix)(i, j) == 0) continue;
      const float r = rank_of(p[j]);
      if (static_cast<int>(best.size()) == top_k && r <= best.back().first) continue;
      auto at = std::find_if(best.begin(), best.end(), [r](const auto& b) { return r > b.first; });
      best.insert(at, {r, j});
      if (static_cast<int>(best.size()) > top_k) best.pop_back();
    }
    const size_t base = static_cast<size_t>(i) * static_cast<size_t>(top_k);
    for (size_t n = 0; n < best.size(); ++n) {
      const int j = best[n].second;
      top_keys[base + n] = static_cast<uint32_t>(j);
      top_weights[base + n] = three_digits(p[j]);  // as the head view prints them
    }
  }

  MapInfo info;
  PoolGrid grid;
  PooledMap thumb;
  int top_k;
  std::vector<float> weights, scores;  // whole maps: [n_query, n_key]
  std::vector<double> lse;             // whole maps with scores: per query row
  std::vector<uint32_t>
      exception_at;  // cells whose weight is not float32(exp(s - lse)) to 3 digits
  std::vector<float> exception_weight;  // … and their weights
  std::optional<PooledMap> pooled;      // long maps
  std::vector<uint32_t> top_keys;       // long maps: [n_query, top_k], k_no_key past the last
  std::vector<float> top_weights;
  std::vector<std::pair<float, int>> scratch;
  float vmax = 0.0f;  // the largest finite weight so far
};

HtmlSink::HtmlSink(std::filesystem::path file, HtmlOptions options)
    : file_(std::move(file)), options_(std::move(options)), stats_([&] {
        StatsOptions s = options_.stats;
        s.selection = options_.selection;
        return s;
      }()) {
  if (options_.max_cells < 16) throw usage_error("--html-cells must be at least 16");
  out_ = std::make_unique<AtomicFileWriter>(file_);  // a folder that cannot take the page fails now
}

HtmlSink::~HtmlSink() = default;

void HtmlSink::begin_map(const MapInfo& info) {
  current_.reset();
  if (!options_.selection.matches(info.id)) return;
  if (info.kind.empty()) stats_.begin_map(info);
  current_ = std::make_unique<Current>(
      info, PoolGrid::for_map(info.n_query, info.n_key, options_.max_cells), options_.top_k);
}

void HtmlSink::queries_and_keys(const MapInfo& info, ConstMatrixRef q, ConstMatrixRef k) {
  if (current_ && info.kind.empty()) stats_.queries_and_keys(info, q, k);
}

void HtmlSink::on_block(const AttentionBlock& block) {
  if (!current_) return;
  Current& c = *current_;
  if (c.info.kind.empty()) stats_.on_block(block);
  const Mask* mask = c.info.mask.get();
  c.thumb.add(block.row_begin, block.probs, mask);
  const auto n_key = static_cast<size_t>(c.info.n_key);
  const bool has_scores = c.info.kind.empty();
  for (int r = 0; r < block.row_end - block.row_begin; ++r) {
    const int i = block.row_begin + r;
    const float* p = block.probs.row(r).data();
    const float* s = has_scores ? block.scores.row(r).data() : nullptr;
    const auto [lo, hi] =
        c.info.mask->key_range(i, c.info.n_key);  // masked weights are 0: not needed
    if (hi > lo) c.vmax = max_finite(p + lo, static_cast<size_t>(hi - lo), c.vmax);
    if (c.grid.pool == 1) {
      std::copy(p, p + n_key,
                c.weights.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(i) * n_key));
      if (s) {
        std::copy(s, s + n_key,
                  c.scores.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(i) * n_key));
        c.keep_lse(i, s, p);
      }
    } else {
      c.keep_strongest(i, p);
    }
  }
  if (c.pooled) c.pooled->add(block.row_begin, block.probs, mask);
}

int HtmlSink::labels_index(const std::shared_ptr<const Labels>& labels) {
  for (size_t i = 0; i < labels_.size(); ++i) {
    if (labels_[i] == labels) return static_cast<int>(i);
  }
  labels_.push_back(labels);
  return static_cast<int>(labels_.size() - 1);
}

HtmlSink::MaskEntry& HtmlSink::mask_entry(const std::shared_ptr<const Mask>& mask,
                                          const PoolGrid& grid) {
  for (auto& e : masks_) {
    if (e.mask == mask && e.grid.pool == grid.pool && e.grid.n_query == grid.n_query &&
        e.grid.n_key == grid.n_key) {
      return e;
    }
  }
  MaskEntry e;
  e.mask = mask;
  e.grid = grid;
  e.counts = std::make_shared<const CountMatrix>(allowed_counts(*mask, grid));
  masks_.push_back(std::move(e));
  return masks_.back();
}

void HtmlSink::end_map(const MapInfo& info) {
  if (!current_) return;
  if (info.kind.empty()) stats_.end_map(info);
  Current& c = *current_;
  MaskEntry& thumb_mask = mask_entry(c.info.mask, c.thumb.grid());
  const Matrix thumb = c.thumb.values(PoolMode::max, *thumb_mask.counts);
  MaskEntry& stored_mask = mask_entry(c.info.mask, c.grid);
  int mask_blob = -1;
  if (!c.info.mask->is_none()) {
    // One 0/1 plane per (mask, grid), shared by the heads under it.
    MaskEntry& entry = stored_mask;
    if (entry.index < 0) {
      std::vector<uint8_t> flags(static_cast<size_t>(entry.counts->size()));
      for (size_t i = 0; i < flags.size(); ++i) flags[i] = entry.counts->data()[i] > 0 ? 1 : 0;
      entry.index = static_cast<int>(mask_blobs_.size());
      mask_blobs_.push_back(array_blob(flags));
      mask_names_.push_back(c.info.mask->describe());
    }
    mask_blob = entry.index;
  }

  detail::MapRecord rec;
  rec.id = c.info.id;
  rec.kind = c.info.kind;
  rec.n_heads = c.info.n_heads;
  rec.n_query = c.info.n_query;
  rec.n_key = c.info.n_key;
  rec.d_k = c.info.d_head;
  rec.scale = c.info.scale;
  rec.additive = c.info.additive != nullptr;
  rec.softcap = c.info.softcap;
  rec.sink_logit = c.info.sink_logit;
  rec.pool = c.grid.pool;
  rec.cells_q = c.grid.cells_q;
  rec.cells_k = c.grid.cells_k;
  rec.top_k = c.grid.pool == 1 ? 0 : c.top_k;
  rec.query_labels = labels_index(c.info.query_labels);
  rec.key_labels = labels_index(c.info.key_labels);
  rec.mask = mask_blob;
  rec.mask_text = c.info.mask->describe();
  rec.vmax = c.vmax;
  rec.log = log_scale_for(c.info, options_.colour_scale);
  rec.thumb_q = c.thumb.grid().cells_q;
  rec.thumb_k = c.thumb.grid().cells_k;
  rec.thumb = array_blob(thumbnail_cells(thumb, *thumb_mask.counts));
  if (c.grid.pool == 1) {
    // Weights as float32(exp(score - lse)) with the few exceptions (half the bytes), or, when the
    // exceptions are many (the weights are not the scores' softmax), as they are.
    if (!c.scores.empty()) {
      rec.blobs.emplace_back("s", array_blob(c.scores));
      if (c.exception_at.size() <= c.weights.size() / 8) {
        rec.blobs.emplace_back("lse", array_blob(c.lse));
        rec.blobs.emplace_back("ex", array_blob(c.exception_at));
        rec.blobs.emplace_back("ew", array_blob(c.exception_weight));
      } else {
        rec.blobs.emplace_back("w", array_blob(c.weights));
      }
    } else {
      rec.blobs.emplace_back("w", array_blob(c.weights));
    }
  } else {
    rec.blobs.emplace_back(
        "w", array_blob(three_digit_plane(c.pooled->values(PoolMode::mean, *stored_mask.counts))));
    rec.blobs.emplace_back(
        "x", array_blob(three_digit_plane(c.pooled->values(PoolMode::max, *stored_mask.counts))));
    rec.blobs.emplace_back("tk", array_blob(c.top_keys));
    rec.blobs.emplace_back("tw", array_blob(c.top_weights));
  }
  maps_.push_back(std::move(rec));
  current_.reset();
}

namespace {

// "49 tokens", or per stack "encoder 10 tokens · decoder 8 tokens".
std::string input_note(const std::vector<detail::MapRecord>& maps) {
  std::vector<std::string> parts, seen;
  for (const auto& m : maps) {
    if (std::find(seen.begin(), seen.end(), m.id.stack) != seen.end()) continue;
    seen.push_back(m.id.stack);
    parts.push_back((m.id.stack.empty() ? "" : m.id.stack + " ") +
                    fmt::format("{} tokens", m.n_query));
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " · ") + p;
  return out;
}

}  // namespace

size_t HtmlSink::maps_written() const {
  return bytes_ ? maps_.size() : 0;
}

void HtmlSink::finish() {
  if (maps_.empty()) return;
  detail::PageInput page;
  page.model_name = options_.model_name;
  page.input_note = options_.input_note.empty() ? input_note(maps_) : options_.input_note;
  page.cmap = options_.cmap;
  page.maps = &maps_;
  page.labels = &labels_;
  page.mask_blobs = &mask_blobs_;
  page.mask_names = &mask_names_;
  page.stats = &stats_.heads();
  page.saturation = options_.stats.saturation;
  if (const auto& p = options_.picture; p && p->image) {
    page.picture = detail::PagePicture{p->image->width,
                                       p->image->height,
                                       p->first,
                                       p->rows,
                                       p->cols,
                                       p->patch,
                                       detail::array_blob(p->image->rgb)};
  }
  // Streamed into the temp file opened at the start, then renamed into place: no copy of the page.
  uint64_t bytes = 0;
  detail::render_page(page, [&](std::string_view piece) {
    out_->write(piece);
    bytes += piece.size();
  });
  out_->commit();
  bytes_ = bytes;
  if (bytes > k_large_page_bytes) {
    notes_.push_back(fmt::format(
        "{}: the page is {:.1f} GB; browsers may fail to open pages this large: select fewer "
        "maps (--layer, --head) or store them pooled (a smaller --html-cells)",
        file_.string(), static_cast<double>(bytes) / 1e9));
  }
}

}  // namespace attnviz
