// `attnviz residual`: the residual stream around every sublayer — how large the stream is going in
// and out, what the norm makes of it, how large each sublayer's update is — so pre- and post-norm
// blocks and the attention / feed-forward shares can be compared layer by layer.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "attnviz/analysis/residual_norms.hpp"
#include "attnviz/cli/collect.hpp"
#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/output_flags.hpp"
#include "attnviz/cli/prepare.hpp"
#include "attnviz/cli/residual_plan.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/io/json_write.hpp"
#include "attnviz/render/table.hpp"

namespace attnviz {

namespace {

// The feed-forward row's share of its layer's updates: ‖Δ_ffn‖ / (‖Δ_attention‖ + ‖Δ_cross‖ +
// ‖Δ_ffn‖).
double ffn_share(const std::vector<SublayerNorms>& all, size_t k) {
  double total = 0;
  for (const auto& s : all) {
    if (s.stack == all[k].stack && s.layer == all[k].layer) total += s.update;
  }
  return total > 0 ? all[k].update / total : 0.0;
}

void residual_command(const ResidualArgs& a) {
  const TableFormat format = resolve_residual(a);  // every flag checked: nothing has loaded yet
  const PreparedRun run = prepare_run(a.in);
  ResidualCollector residual;
  run_collecting(run, residual);
  std::vector<SublayerNorms> all;
  for (const auto& s : residual.sublayers()) {
    if (run.selection.layer.contains(s.layer)) all.push_back(s);
  }
  if (all.empty())
    throw usage_error(fmt::format("{} has no residual sublayers ({})", run.model.name,
                                  run.model.config.recurrent
                                      ? "its stacks are GRUs, whose state is no residual "
                                        "stream"
                                      : "a bare attention layer"));
  if (format == TableFormat::json) {
    nlohmann::ordered_json j;
    j["model"] = run.model.name;
    j["sublayers"] = nlohmann::json::array();
    for (size_t k = 0; k < all.size(); ++k) {
      const auto& s = all[k];
      nlohmann::ordered_json row = {
          {"stack", s.stack},         {"layer", s.layer},          {"sublayer", s.kind},
          {"placement", s.placement}, {"tokens", s.tokens},        {"x", s.x},
          {"f_input", s.f_input},     {"update", s.update},        {"out", s.out},
          {"cos_x_update", s.cosine}, {"share", ffn_share(all, k)}};
      j["sublayers"].push_back(row);
    }
    std::cout << json_text(j, 2) << '\n';
    return;
  }
  std::vector<std::vector<std::string>> rows = {{"layer", "sublayer", "placement", "‖x‖ in",
                                                 "‖f input‖", "‖update‖", "‖x‖ out", "update/‖x‖",
                                                 "cos(x, update)", "share"}};
  const int p = format == TableFormat::csv ? 9 : a.precision;
  for (size_t k = 0; k < all.size(); ++k) {
    const auto& s = all[k];
    rows.push_back(
        {(s.stack.empty() ? "" : s.stack + ".") + std::to_string(s.layer), s.kind, s.placement,
         fmt::format("{:.{}f}", s.x, p), fmt::format("{:.{}f}", s.f_input, p),
         fmt::format("{:.{}f}", s.update, p), fmt::format("{:.{}f}", s.out, p),
         fmt::format("{:.{}f}", s.x > 0 ? s.update / s.x : 0.0, p),
         fmt::format("{:.{}f}", s.cosine, p), fmt::format("{:.{}f}", ffn_share(all, k), p)});
  }
  std::string tokens;
  for (const auto& s : all) {
    const std::string t =
        fmt::format("{}{} tokens", s.stack.empty() ? "" : s.stack + " ", s.tokens);
    if (tokens.find(t) == std::string::npos) tokens += (tokens.empty() ? "" : ", ") + t;
  }
  // The rarer placements are explained when the model has them.
  std::string rarer;
  const auto has = [&](const std::string& placement) {
    return std::any_of(all.begin(), all.end(),
                       [&](const SublayerNorms& s) { return s.placement == placement; });
  };
  if (has("output norm")) rarer += "; output norm: x + Norm(f(x))";
  if (has("parallel")) rarer += "; parallel: x + Attn(Norm(x)) + FFN(Norm₂(x)), both read x";
  const std::string title = fmt::format(
      "{} · the residual stream around each sublayer, mean over the tokens ({}) of per-token L2 "
      "norms · pre-norm: "
      "x + f(Norm(x)); post-norm: Norm(x + f(x)); sandwich: x + Norm(f(Norm(x))){} · share: of the "
      "layer's updates",
      run.model.name, tokens, rarer);
  std::cout << report_table(title, std::move(rows), format, [](size_t c) { return c <= 2; });
}

}  // namespace

void add_residual_command(CLI::App& app) {
  auto args = std::make_shared<ResidualArgs>();
  CLI::App* cmd = app.add_subcommand("residual",
                                     "the residual stream around every sublayer: ‖x‖ in and out, "
                                     "what the norm gives the sublayer, the "
                                     "size of each update and its share of the layer's (pre- vs "
                                     "post-norm, attention vs feed-forward)");
  add_input_flags(*cmd, args->in);
  add_table_format_flag(*cmd, args->format, "text, csv, json or markdown");
  add_precision_flag(*cmd, args->precision, "digits after the decimal point (text, markdown)");
  cmd->callback([args] { residual_command(*args); });
}

}  // namespace attnviz
