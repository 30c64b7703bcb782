// --mask FILE: reading a mask as PyTorch users save it, and deciding what its values mean.
// Conventions: PyTorch has three (a 0/1 keep mask for masked_fill(mask == 0, -inf), an additive
// float mask, and nn.MultiheadAttention's bool mask where True blocks); only the values and dtype
// can tell them apart, and where they cannot, the user must say which (--mask-convention).
#include "attnviz/inputs/mask_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>
#include <filesystem>

#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokens.hpp"
#include "attnviz/io/npy.hpp"

namespace attnviz {

namespace {

// An additive mask value this negative masks the key: exp(s − 1e4) underflows to exactly 0 in
// float32 for any score s below ~9,900, and PyTorch code uses −1e4 (old BERT), −65504 (float16's
// finfo.min), −1e9, −3.4e38 (float32's finfo.min) or −inf.
constexpr double k_additive_masked = -1e4;

// A mask as read, before its values are interpreted.
struct RawMask {
  std::vector<int64_t> shape;
  char kind = 'f';  // 'b' bool, 'i'/'u' integer, 'f' float (text: 'i' when every entry is 0 or 1)
  std::vector<double> values;
};

const char* convention_name(MaskConvention c) {
  switch (c) {
    case MaskConvention::keep:
      return "keep (1 = attend)";
    case MaskConvention::block:
      return "block (1/True = masked)";
    case MaskConvention::additive:
      return "additive (0 = attend, -inf = masked)";
    default:
      return "auto";
  }
}

// The [n_query or 1, n_key] core of a shape whose other dimensions must all be 1.
std::pair<int64_t, int64_t> core_shape(const std::vector<int64_t>& shape, const std::string& path,
                                       int n_query, int n_key) {
  const std::string shown = fmt::format("[{}]", fmt::join(shape, ", "));
  if (shape.empty())
    throw Error(fmt::format("{}: the mask is a scalar, expected [{}, {}]", path, n_query, n_key));
  for (size_t d = 0; d + 2 < shape.size(); ++d) {
    if (shape[d] != 1) {
      throw Error(
          fmt::format("{}: mask shape {} has leading dimension {} of size {}: attnviz takes one "
                      "[queries, keys] mask for every head and batch item (save mask[0])",
                      path, shown, d, shape[d]));
    }
  }
  const int64_t rows = shape.size() == 1 ? 1 : shape[shape.size() - 2];
  const int64_t cols = shape.back();
  if ((rows != n_query && rows != 1) || cols != n_key) {
    throw Error(
        fmt::format("{}: mask is {}, expected [{}, {}] (queries × keys), or [1, {}] for every "
                    "query",
                    path, shown, n_query, n_key, n_key));
  }
  return {rows, cols};
}

// One entry of a text mask: 0, 1, or a number as np.savetxt writes it (1.000000000000000000e+00,
// -inf). Sets `integer` false when the entry is not the digit 0 or 1.
double parse_entry(std::string_view token, const std::string& path, size_t line_no, bool& integer) {
  if (token == "0" || token == "1") return token == "1" ? 1.0 : 0.0;
  integer = false;
  double v = 0;
  const char* first = token.data() + (token.front() == '+' ? 1 : 0);
  const auto [end, ec] = std::from_chars(first, token.data() + token.size(), v);
  if (ec != std::errc() || end != token.data() + token.size()) {
    throw Error(
        fmt::format("{}: line {}: '{}' is not a number", path, line_no, printable_text(token)));
  }
  return v;
}

RawMask read_text_mask(const std::string& path, int n_query, int n_key) {
  const std::string file_text = read_text_file(path);
  const std::string_view text = strip_utf8_bom(file_text);
  RawMask m;
  bool integer = true;
  int64_t rows = 0;
  size_t line_no = 0;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line_no;
    int64_t cols = 0;
    for (size_t i = start; i < end;) {
      const size_t tok_end = std::min(end, text.find_first_of(" ,\t\r", i));
      if (tok_end > i) {
        // Refused as it arrives, so a huge file of the wrong size costs nothing.
        if (rows == n_query) {
          throw Error(
              fmt::format("{}: line {} starts row {}; expected {} rows of {} (queries × keys)",
                          path, line_no, rows, n_query, n_key));
        }
        if (cols == n_key) {
          throw Error(
              fmt::format("{}: line {} (row {}) has more than {} entries; expected {} rows of {} "
                          "(queries × keys)",
                          path, line_no, rows, n_key, n_query, n_key));
        }
        m.values.push_back(parse_entry(text.substr(i, tok_end - i), path, line_no, integer));
        ++cols;
      }
      i = tok_end + 1;
    }
    if (cols > 0) {
      // Checked as the rows arrive, so a huge file of the wrong size is refused early.
      if (cols != n_key) {
        throw Error(fmt::format(
            "{}: line {} (row {}) has {}; expected {} rows of {} (queries × keys)", path, line_no,
            rows, cols == 1 ? std::string("1 entry") : fmt::format("{} entries", cols), n_query,
            n_key));
      }
      ++rows;
    }
    start = end + 1;
  }
  if (rows == 0) throw Error(fmt::format("{}: the mask file is empty", path));
  // A text file has no shape to say "one row for every query": fewer rows is a truncated file.
  if (rows != n_query) {
    throw Error(fmt::format("{}: {} of {}, expected {} rows (queries × keys)", path,
                            count_of(rows, "row"), n_key, n_query));
  }
  m.shape = {rows, n_key};
  m.kind = integer ? 'i' : 'f';
  return m;
}

RawMask read_npy_mask(const std::string& path, int n_query, int n_key) {
  // No mask of the right shape is larger than 8 bytes a cell plus a header: a bigger file is
  // refused before it is read.
  const uint64_t max_bytes = uint64_t(n_query) * uint64_t(n_key) * 8 + (uint64_t(1) << 20);
  NpyArray a = read_npy_array(
      path,
      [&](const std::vector<int64_t>& shape, char) { core_shape(shape, path, n_query, n_key); },
      max_bytes);
  return RawMask{std::move(a.shape), a.kind, std::move(a.values)};
}

// "[2, 3]" for the flat index k of a [rows, n_key] mask.
std::string position(size_t k, int n_key) {
  return fmt::format("[{}, {}]", k / static_cast<size_t>(n_key), k % static_cast<size_t>(n_key));
}

// What the values say on their own: keep for integer 0/1 (attnviz's text format, subsequent_mask,
// HF attention_mask), additive when a large negative value is present; otherwise the user decides.
MaskConvention decide(const RawMask& m, const std::string& path, int n_key) {
  if (m.kind == 'b') {
    throw usage_error(fmt::format(
        "{}: a bool mask means 'True = attend' to F.scaled_dot_product_attention but 'True = "
        "masked' "
        "to nn.MultiheadAttention: say --mask-convention keep or --mask-convention block",
        path));
  }
  bool all_zero = true;
  for (size_t k = 0; k < m.values.size(); ++k) {
    const double v = m.values[k];
    if (v <= k_additive_masked) return MaskConvention::additive;
    if (v != 0.0 && v != 1.0) {
      throw Error(
          fmt::format("{}: value {} at {} is neither a 0/1 mask entry nor an additive mask entry "
                      "(0, or -inf / <= -1e4 for masked)",
                      path, v, position(k, n_key)));
    }
    all_zero = all_zero && v == 0.0;
  }
  if (m.kind == 'f' && all_zero) {
    throw usage_error(
        fmt::format("{}: every value is 0.0: as a keep mask every key is masked, as an additive "
                    "mask none is: say "
                    "--mask-convention keep or --mask-convention additive",
                    path));
  }
  return MaskConvention::keep;
}

// Applies the convention: 1 where the key may be attended; a value the convention has no meaning
// for is an error naming it.
// PyTorch adds a finite "masking" value to the scores: when it covers a whole row, the row keeps
// its softmax (−1e4 everywhere cancels) or turns near-uniform (−1e9), which a 0/1 mask cannot say.
void check_finite_blocked_rows(const MaskMatrix& allowed, const RawMask& m, const std::string& path,
                               int64_t cols) {
  for (Eigen::Index i = 0; i < allowed.rows(); ++i) {
    if (allowed.row(i).any()) continue;
    const size_t at = static_cast<size_t>(std::min<int64_t>(i, m.values.size() / cols - 1) * cols);
    for (int64_t j = 0; j < cols; ++j) {
      if (std::isfinite(m.values[at + j])) {
        throw Error(
            fmt::format("{}: row {} blocks every key with finite values ({} at [{}, {}]): PyTorch "
                        "adds them to every "
                        "score, so the row is not masked but shifted; attnviz cannot show that as "
                        "a mask: use -inf",
                        path, i, m.values[at + j], i, j));
      }
    }
  }
}

MaskMatrix interpret(const RawMask& m, MaskConvention c, const std::string& path, int n_query,
                     int n_key) {
  const auto [rows, cols] = core_shape(m.shape, path, n_query, n_key);
  if (c == MaskConvention::additive && m.kind == 'b') {
    throw usage_error(fmt::format(
        "{}: a bool mask cannot be additive: say --mask-convention keep or block", path));
  }
  MaskMatrix out(n_query, n_key);
  for (size_t k = 0; k < m.values.size(); ++k) {
    const double v = m.values[k];
    const bool binary = v == 0.0 || v == 1.0;
    const bool additive_ok = v == 0.0 || v <= k_additive_masked;
    if (c == MaskConvention::additive ? !additive_ok : !binary) {
      throw Error(fmt::format("{}: value {} at {} does not fit the {} convention", path, v,
                              position(k, n_key), convention_name(c)));
    }
    const bool allowed = c == MaskConvention::keep ? v == 1.0 : v == 0.0;
    const auto j = static_cast<Eigen::Index>(k % static_cast<size_t>(cols));
    const auto i = static_cast<Eigen::Index>(k / static_cast<size_t>(cols));
    // One row [1, n_key] stands for every query, as PyTorch broadcasts it.
    for (Eigen::Index q = (rows == 1 ? 0 : i); q < (rows == 1 ? n_query : i + 1); ++q) {
      out(q, j) = allowed ? 1 : 0;
    }
  }
  return out;
}

}  // namespace

MaskConvention parse_mask_convention(const std::string& name) {
  if (name == "auto" || name.empty()) return MaskConvention::automatic;
  if (name == "keep") return MaskConvention::keep;
  if (name == "block") return MaskConvention::block;
  if (name == "additive") return MaskConvention::additive;
  throw usage_error(
      fmt::format("--mask-convention {}: expected auto, keep, block or additive", name));
}

MaskMatrix read_mask_file(const std::string& path, int n_query, int n_key,
                          MaskConvention convention) {
  const RawMask m = std::filesystem::path(path).extension() == ".npy"
                        ? read_npy_mask(path, n_query, n_key)
                        : read_text_mask(path, n_query, n_key);
  for (size_t k = 0; k < m.values.size(); ++k) {
    if (std::isnan(m.values[k])) {
      throw Error(fmt::format("{}: value nan at {}: a mask entry must be a number", path,
                              position(k, n_key)));
    }
  }
  if (convention == MaskConvention::automatic) convention = decide(m, path, n_key);
  MaskMatrix allowed = interpret(m, convention, path, n_query, n_key);
  if (convention == MaskConvention::additive) check_finite_blocked_rows(allowed, m, path, n_key);
  return allowed;
}

}  // namespace attnviz
