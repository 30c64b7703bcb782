// The --logits table: rows of (position, token, rank, id, next token, logit, probability).
#include "attnviz/reports/prediction_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

#include "attnviz/core/unicode.hpp"
#include "attnviz/io/json_write.hpp"

namespace attnviz {

namespace {

constexpr std::array<const char*, 7> k_header{"position", "token", "rank",       "id",
                                              "next",     "logit", "probability"};

std::string fixed(float x, int precision) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{:.{}f}", x, precision);
}

// The cells of a row; `first` says whether it opens its position (text shows position and token
// once).
std::array<std::string, 7> cells(const PredictionRow& r, bool first, int precision) {
  return {first ? std::to_string(r.position) : "",
          first ? r.token : "",
          std::to_string(r.rank),
          std::to_string(r.id),
          r.label,
          fixed(r.logit, precision),
          fixed(r.probability, precision)};
}

bool opens_position(const std::vector<PredictionRow>& rows, size_t i) {
  return i == 0 || rows[i].position != rows[i - 1].position;
}

// Aligned columns (labels left, numbers right); markdown: between pipes, an alignment row under the
// header.
std::string render_aligned(const std::string& title, const std::vector<PredictionRow>& rows,
                           int precision, bool markdown) {
  std::vector<std::vector<std::string>> table{
      std::vector<std::string>(k_header.begin(), k_header.end())};
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto line = cells(rows[i], opens_position(rows, i), precision);
    table.emplace_back(line.begin(), line.end());
  }
  for (auto& line : table) {
    for (auto& cell : line) cell = markdown ? markdown_field(cell) : printable_text(cell);
  }
  std::string out =
      markdown ? "**" + markdown_field(title) + "**\n\n" : printable_text(title) + '\n';
  return out + aligned_columns(
                   table, column_widths(table), {0, 1, 2, 3, 4, 5, 6},
                   [](size_t c) { return c == 1 || c == 4; }, markdown);
}

std::string render_csv(const std::vector<PredictionRow>& rows, int precision) {
  std::string out;
  for (size_t c = 0; c < 7; ++c) out += (c ? "," : "") + std::string(k_header[c]);
  out += '\n';
  for (const auto& r : rows) {
    const auto line = cells(r, true, precision);
    for (size_t c = 0; c < 7; ++c) out += (c ? "," : "") + csv_field(line[c]);
    out += '\n';
  }
  return out;
}

nlohmann::ordered_json number(float x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return std::stod(fmt::format("{}", x));  // the shortest decimal that reads back as this float
}

std::string render_json(const std::string& title, const std::vector<PredictionRow>& rows) {
  nlohmann::ordered_json doc{{"title", title}, {"positions", nlohmann::ordered_json::array()}};
  auto& positions = doc["positions"];
  for (size_t i = 0; i < rows.size(); ++i) {
    const PredictionRow& r = rows[i];
    if (opens_position(rows, i)) {
      positions.push_back({{"position", r.position},
                           {"token", r.token},
                           {"predictions", nlohmann::ordered_json::array()}});
    }
    positions.back()["predictions"].push_back({{"rank", r.rank},
                                               {"id", r.id},
                                               {"next", r.label},
                                               {"logit", number(r.logit)},
                                               {"probability", number(r.probability)}});
  }
  // Labels of byte-level tokens may be invalid UTF-8: write U+FFFD rather than throw.
  return json_text(doc) + '\n';
}

}  // namespace

std::string render_predictions(const std::string& title, const std::vector<PredictionRow>& rows,
                               const TableStyle& style) {
  switch (style.format) {
    case TableFormat::csv:
      return render_csv(rows, style.precision);
    case TableFormat::json:
      return render_json(title, rows);
    case TableFormat::markdown:
      return render_aligned(title, rows, style.precision, true);
    case TableFormat::text:
      break;
  }
  return render_aligned(title, rows, style.precision, false);
}

}  // namespace attnviz
