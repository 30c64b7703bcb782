// Turning --tokens / --ids / --embeddings / --mask into sequences and masks, with clear errors.
#include "attnviz/cli/inputs.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "attnviz/core/error.hpp"
#include "attnviz/io/npy.hpp"
#include "attnviz/text/tokens.hpp"

namespace attnviz {

Sequence resolve_sequence(const Model& model, const std::string& tokens, const std::string& ids,
                          const std::string& embeddings, const std::string& role) {
  const std::string flag = role == "source" ? "--source-" : "--";
  if (!ids.empty() && (!tokens.empty() || !embeddings.empty())) {
    throw usage_error(fmt::format("{}ids cannot be combined with {}tokens or {}embeddings", flag,
                                  flag, flag));
  }
  // A lone attention module's keys and values may have their own width (nn.MultiheadAttention's
  // kdim / vdim); one source sequence feeds both, so they must agree.
  const Config& c = model.config;
  const bool kv_input = role == "source" && c.arch == Arch::mha;
  if (kv_input && c.kdim != c.vdim) {
    throw Error(fmt::format("{}: kdim {} ≠ vdim {}: attnviz feeds one source sequence to both keys and "
                            "values", model.name, c.kdim, c.vdim));
  }
  const int width = kv_input ? c.kdim : c.d_model;
  if (!embeddings.empty()) {
    std::vector<std::string> labels;
    if (!tokens.empty()) labels = read_tokens(tokens);
    return embedded_input(model, read_npy(embeddings), std::move(labels), embeddings, width);
  }
  if (width != c.d_model) {
    throw usage_error(fmt::format("{}: keys and values are {} wide (kdim), not d_model {}: give "
                                  "{}embeddings of that width", model.name, width, c.d_model, flag));
  }
  if (!ids.empty()) {
    std::error_code ec;  // a long id list is no file name: is_regular_file must not throw on it
    const bool is_file = ids == "-" || std::filesystem::is_regular_file(ids, ec);
    return embed_ids(model, parse_ids(is_file ? read_text_file(ids) : ids, is_file ? ids : flag + "ids"));
  }
  if (!tokens.empty()) return embed_tokens(model, read_tokens(tokens));
  throw usage_error(fmt::format("no {} input: give {}tokens, {}ids or {}embeddings", role, flag, flag,
                                flag));
}

namespace {

MaskMatrix parse_mask_text(const std::string& path) {
  const std::string text = read_text_file(path);
  std::vector<std::vector<uint8_t>> rows;
  size_t line_no = 0;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line_no;
    std::vector<uint8_t> row;
    for (size_t i = start; i < end; ++i) {
      const char c = text[i];
      if (c == '0' || c == '1') {
        row.push_back(static_cast<uint8_t>(c - '0'));
      } else if (c != ' ' && c != ',' && c != '\t' && c != '\r') {
        throw Error(fmt::format("{}: line {}: '{}' is not 0 or 1", path, line_no, c));
      }
    }
    if (!row.empty()) {
      if (!rows.empty() && row.size() != rows.front().size()) {
        throw Error(fmt::format("{}: line {} has {} entries, the first row has {}", path, line_no,
                                row.size(), rows.front().size()));
      }
      rows.push_back(std::move(row));
    }
    start = end + 1;
  }
  if (rows.empty()) throw Error(fmt::format("{}: the mask file is empty", path));
  MaskMatrix m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows[0].size()));
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t j = 0; j < rows[i].size(); ++j) m(Eigen::Index(i), Eigen::Index(j)) = rows[i][j];
  }
  return m;
}

}  // namespace

MaskMatrix read_mask_file(const std::string& path, int n_query, int n_key) {
  MaskMatrix m = std::filesystem::path(path).extension() == ".npy"
                     ? MaskMatrix((read_npy(path).array() != 0.0f).cast<uint8_t>())
                     : parse_mask_text(path);
  if (m.rows() != n_query || m.cols() != n_key) {
    throw Error(fmt::format("{}: mask is [{}, {}], expected [{}, {}] (queries × keys)", path, m.rows(),
                            m.cols(), n_query, n_key));
  }
  return m;
}

}  // namespace attnviz
