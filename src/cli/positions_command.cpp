// `attnviz positions`: a model's positional encoding as figures — the encoding (positions ×
// dimensions) and how alike positions look (positions × positions) — and a summary on stdout.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/model_flags.hpp"
#include "attnviz/cli/output_flags.hpp"
#include "attnviz/cli/validators.hpp"
#include "attnviz/compute/position_maps.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/io/json_write.hpp"
#include "attnviz/io/staged_dir.hpp"
#include "attnviz/model/locate/hf_cache.hpp"
#include "attnviz/render/figure.hpp"
#include "attnviz/render/figure_file.hpp"
#include "attnviz/render/pooled_map.hpp"
#include "attnviz/render/table.hpp"

namespace attnviz {

namespace {

struct PositionsArgs {
  std::string model;
  ModelFlags model_flags;
  int positions = 64;
  std::string format = "text", png_dir, font;
  int precision = 3, max_pixels = 1024;
  FigureFlags figure_flags;  // --figure-format, --dpi
  FigureFile figure_file;
};

nlohmann::json matrix_json(const Matrix& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      row.push_back(std::isfinite(m(i, j)) ? nlohmann::json(m(i, j)) : nlohmann::json(nullptr));
    }
    rows.push_back(row);
  }
  return rows;
}

// A signed matrix on the diverging colour map, centred on 0 (±range), mean-pooled past max_pixels.
Canvas signed_figure(const std::string& title, std::string caption, const Matrix& values,
                     const std::string& col_axis, float range, int max_pixels,
                     const std::shared_ptr<const FontSet>& fonts, CanvasScale scale) {
  FigureMap map;
  map.n_query = static_cast<int>(values.rows()), map.n_key = static_cast<int>(values.cols());
  map.row_axis = "positions", map.col_axis = col_axis;  // labels: the indices
  const PoolGrid grid = PoolGrid::for_map(map.n_query, map.n_key, max_pixels);
  if (grid.pool > 1) {
    PooledMap pooled(grid);
    pooled.add(0, values);
    map.values = pooled.values(PoolMode::mean, allowed_counts(Mask{}, grid));
    caption += fmt::format(" · mean-pooled {0}×{0} per cell", grid.pool);
  } else {
    map.values = values;
  }
  map.pool = grid.pool;
  map.allowed = MaskMatrix::Ones(map.values.rows(), map.values.cols());
  FigureStyle style;
  style.cmap = ColormapId::diverging;
  style.vmin = -range, style.vmax = range;
  style.fonts = fonts;
  style.scale = scale;  // --dpi, --font-size; --size is for attention maps
  return heatmap_figure(title, caption, map, style);
}

float largest_magnitude(const Matrix& m) {
  float r = 0;
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    if (std::isfinite(m.data()[i])) r = std::max(r, std::abs(m.data()[i]));
  }
  return r > 0 ? r : 1.0f;
}

void positions_command(const PositionsArgs& a) {
  const TableFormat format = parse_table_format(a.format);
  if (format != TableFormat::text && format != TableFormat::json)
    throw usage_error("positions --format: text or json");
  std::shared_ptr<const FontSet> fonts;
  if (!a.png_dir.empty())
    fonts = FontSet::find(a.font);  // a bad --font fails before anything is read
  const ModelLocation where = locate_model(a.model, HfEnvironment::of_process());
  const Model model = load_model(where.path, overrides_of(a.model_flags));
  const PositionMaps m = position_maps(model, a.positions);
  if (format == TableFormat::json) {
    nlohmann::ordered_json j;
    j["model"] = model.name;
    j["kind"] = m.kind;
    j["encoding_what"] = m.encoding_what;
    j["encoding"] = matrix_json(m.encoding);
    j["similarity_what"] = m.similarity_what;
    j["similarity"] = matrix_json(m.similarity);
    std::cout << json_text(j, 2) << '\n';
  } else {
    std::cout << fmt::format("{} · {} positions · {} positions × {} columns: {}\n", model.name,
                             m.kind, m.encoding.rows(), m.encoding.cols(), m.encoding_what);
    std::cout << fmt::format("similarity ({}), first rows and columns:\n", m.similarity_what);
    const Eigen::Index k = std::min<Eigen::Index>(8, m.similarity.rows());
    std::vector<std::vector<std::string>> rows = {{"p"}};
    for (Eigen::Index j = 0; j < k; ++j) rows[0].push_back(std::to_string(j));
    for (Eigen::Index i = 0; i < k; ++i) {
      std::vector<std::string> row = {std::to_string(i)};
      for (Eigen::Index j = 0; j < k; ++j)
        row.push_back(fmt::format("{:.{}f}", m.similarity(i, j), a.precision));
      rows.push_back(row);
    }
    std::cout << report_table("", std::move(rows), TableFormat::text, [](size_t) { return false; });
  }
  std::cout.flush();
  if (a.png_dir.empty()) return;
  StagedDir dir(a.png_dir);
  const std::string title = fmt::format("{} · {} positions", model.name, m.kind);
  const float range = largest_magnitude(m.encoding);
  const FigureFormat f = a.figure_file.format;
  write_figure(figure_path(dir.staging_path(), "positions.encoding", f),
               signed_figure(title + " · encoding",
                             fmt::format("{} · colour [−{:.3g}, {:.3g}], 0 at the centre",
                                         m.encoding_what, range, range),
                             m.encoding, m.dim_prefix == "θ" ? "frequencies i" : "dimensions",
                             range, a.max_pixels, fonts, figure_scale(a.figure_file)),
               a.figure_file);
  write_figure(figure_path(dir.staging_path(), "positions.similarity", f),
               signed_figure(title + " · position × position",
                             m.similarity_what + " · colour [−1, 1]", m.similarity, "positions",
                             1.0f, a.max_pixels, fonts, figure_scale(a.figure_file)),
               a.figure_file);
  dir.commit();
  note_figures_written(2, a.png_dir);
}

}  // namespace

void add_positions_command(CLI::App& app) {
  auto args = std::make_shared<PositionsArgs>();
  CLI::App* cmd = app.add_subcommand("positions",
                                     "a model's positional encoding (sinusoidal, learned or "
                                     "rotary) as figures: positions × dimensions, "
                                     "and how alike two positions look");
  cmd->add_option("--model,-m", args->model, "the model (file, folder or Hugging Face cache id)")
      ->required();
  add_model_flags(*cmd, args->model_flags);
  cmd->add_option("--positions", args->positions, "positions shown (default 64)")
      ->check(CLI::Range(1, 65536));
  add_table_format_flag(*cmd, args->format, "text (a summary) or json (both matrices whole)");
  add_precision_flag(*cmd, args->precision, "digits after the decimal point (text)");
  cmd->add_option("--png", args->png_dir,
                  "write positions.encoding and positions.similarity (.png, .svg or .pdf: "
                  "--figure-format) into this folder");
  cmd->add_option("--max-pixels", args->max_pixels,
                  "figures mean-pool larger matrices to this many cells per side")
      ->check(CLI::Range(16, 16384));
  cmd->add_option("--font", args->font,
                  "font for figures: a file or a fontconfig name (default sans-serif)");
  add_figure_flags(*cmd, args->figure_flags);
  cmd->callback([args, cmd] {
    args->figure_file =
        figure_file(*cmd, args->figure_flags, {"--max-pixels", "--font"}, args->font);
    positions_command(*args);
  });
}

}  // namespace attnviz
