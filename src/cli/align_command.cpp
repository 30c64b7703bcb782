// `attnviz align`: word alignments from an encoder-decoder's cross-attention, as a Pharaoh line;
// with --gold, every head, each layer's mean and the mean of all ranked by alignment error rate.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attnviz/analysis/alignment.hpp"
#include "attnviz/cli/align_plan.hpp"
#include "attnviz/cli/collect.hpp"
#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/inputs.hpp"
#include "attnviz/cli/notes.hpp"
#include "attnviz/cli/output_flags.hpp"
#include "attnviz/cli/prepare.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/event/gather.hpp"
#include "attnviz/inputs/words.hpp"
#include "attnviz/io/text_file.hpp"

namespace attnviz {

namespace {

// Every head's cross-attention map, whole: [target tokens, source tokens] per (layer, head).
class CrossMaps final : public AttentionSink {
 public:
  void begin_map(const MapInfo& info) override {
    if (info.id.site != Site::cross) return;
    n_heads_ = info.n_heads;
    maps_.insert_or_assign({info.id.layer, info.id.head}, GatheredMap(info));
  }
  void on_block(const AttentionBlock& block) override {
    if (block.info->id.site == Site::cross)
      maps_.at({block.info->id.layer, block.info->id.head}).add(block);
  }
  const Matrix& probs(int layer, int head) const { return maps_.at({layer, head}).probs; }
  int n_heads() const { return n_heads_; }

 private:
  std::map<std::pair<int, int>, GatheredMap> maps_;
  int n_heads_ = 0;
};

// One side's tokens as the run read them, with the word of each: the text encoded again by the
// tokenizer that made the sequence's ids (checked equal), the decoder's start token (no word)
// first.
struct SideWords {
  std::vector<std::string> words;
  std::vector<int> token_words;  // per row of the map's axis
};

SideWords side_words(const Tokenizer& tokenizer, const TextTools& tools, const SequenceFlags& f,
                     const std::string& flag, const Sequence& seq, bool predicting) {
  const std::string text = read_text_input(f, flag);
  const auto pieces = encode_with_bos(tokenizer, text, tools.add_special, tools.bos);
  SideWords s{split_words(text), word_of_pieces(text, pieces)};
  const size_t lead = seq.ids.size() - std::min(seq.ids.size(), pieces.size());
  bool same = seq.ids.size() == pieces.size() + lead && lead <= 1;
  for (size_t i = 0; same && i < pieces.size(); ++i) same = seq.ids[lead + i] == pieces[i].id;
  if (!same) throw Error(fmt::format("align: {}text's tokens differ from the run's", flag));
  // No start token: the first token has no row that predicts it.
  if (predicting && lead == 0 && !s.token_words.empty()) s.token_words[0] = -1;
  s.token_words.insert(s.token_words.begin(), lead, -1);
  return s;
}

// The map a target token is aligned by: its own decoder row, or the one that predicts it.
Matrix aligned_rows(const Matrix& probs, bool predicting) {
  if (!predicting) return probs;
  Matrix out = Matrix::Zero(probs.rows(), probs.cols());
  if (probs.rows() > 1) out.bottomRows(probs.rows() - 1) = probs.topRows(probs.rows() - 1);
  return out;
}

struct Scored {
  std::string map;  // "layer 4 · head 3", "layer 4 · mean", "mean of all"
  Alignment links;
  AerCounts counts;
};

std::string words_line(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i)
    out += fmt::format("{}{} {}", i ? " · " : "", i, printable_text(words[i]));
  return out;
}

void align_command(const AlignArgs& args) {
  const AlignPlan plan = resolve_align(args);
  const PreparedRun run = prepare_run(plan.in);
  const Config& c = run.model.config;
  if (c.arch != Arch::encoder_decoder && !c.decoder_cross) {
    throw usage_error(fmt::format("align reads cross-attention: {} ({}) has none", run.model.name,
                                  arch_name(c.arch)));
  }
  const TextTools& tools = *run.tools;
  const Tokenizer& source_tok = tools.source_tokenizer ? *tools.source_tokenizer : *tools.tokenizer;
  const SideWords source =
      side_words(source_tok, tools, plan.in.source, "--source-", *run.inputs.source, false);
  const SideWords target =
      side_words(*tools.tokenizer, tools, plan.in.target, "--", run.inputs.target, plan.predicting);
  for (const int l : run.selection.layer.indices()) {
    if (l >= c.n_decoder_layers) {
      throw usage_error(
          fmt::format("--layer {}: the decoder has {} (0–{}), and only its layers "
                      "attend across",
                      l, count_of(c.n_decoder_layers, "layer"), c.n_decoder_layers - 1));
    }
  }
  CrossMaps maps;
  run_collecting(run, maps);
  const int layers = c.n_decoder_layers;
  const int heads = maps.n_heads();
  const auto align = [&](const Matrix& probs) {
    return align_words(aligned_rows(probs, plan.predicting), target.token_words, source.token_words,
                       plan.rule);
  };
  const auto mean_of = [&](const std::vector<int>& ls, const std::vector<int>& hs) {
    Matrix sum = Matrix::Zero(maps.probs(ls[0], hs[0]).rows(), maps.probs(ls[0], hs[0]).cols());
    for (int l : ls)
      for (int h : hs) sum += maps.probs(l, h);
    return Matrix(sum / static_cast<float>(ls.size() * hs.size()));
  };
  std::vector<int> all_heads(static_cast<size_t>(heads)), all_layers(static_cast<size_t>(layers));
  for (int h = 0; h < heads; ++h) all_heads[size_t(h)] = h;
  for (int l = 0; l < layers; ++l) all_layers[size_t(l)] = l;
  const std::string rule = plan.rule.kind == AlignRule::Kind::argmax
                               ? "argmax"
                               : fmt::format("weight ≥ {:g}", plan.rule.threshold);
  const char* rows =
      plan.predicting ? "the row predicting each target token" : "each target token's own row";

  if (plan.gold.empty()) {
    // The map asked for (--layer, --head), else the mean of the penultimate layer's heads.
    const std::vector<int> ls =
        plan.in.selection.layer.empty()
            ? std::vector<int>{std::max(0, layers - 2)}
            : (run.selection.layer.indices().empty() ? all_layers : run.selection.layer.indices());
    const std::vector<int> hs =
        run.selection.head.indices().empty() ? all_heads : run.selection.head.indices();
    const Alignment links = align(mean_of(ls, hs));
    std::string what = ls.size() == 1 ? fmt::format("layer {}", ls[0]) : "layers";
    for (size_t i = 0; ls.size() > 1 && i < ls.size(); ++i)
      what += fmt::format("{} {}", i ? "," : "", ls[i]);
    what += hs.size() == 1 ? fmt::format(" · head {}", hs[0])
                           : fmt::format(" · mean of {}", count_of(hs.size(), "head"));
    if (plan.format == TableFormat::json) {
      nlohmann::ordered_json j{{"model", run.model.name},
                               {"layers", ls},
                               {"heads", hs},
                               {"rule", rule},
                               {"rows", plan.predicting ? "predicting" : "input"},
                               {"source_words", source.words},
                               {"target_words", target.words},
                               {"alignment", pharaoh(links)}};
      std::cout << j.dump(2) << '\n';
      return;
    }
    print_note(fmt::format("cross-attention of {}, {}, {}; source words: {}; target words: {}",
                           what, rule, rows, words_line(source.words), words_line(target.words)));
    std::cout << pharaoh(links) << '\n';
    return;
  }

  // --gold: one Pharaoh line for this sentence pair.
  std::string gold_line;
  int lines = 0;
  std::istringstream in(read_text_file(plan.gold));
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    gold_line = line;
    ++lines;
  }
  if (lines != 1) {
    throw Error(fmt::format("{}: {} alignment lines, but align was given one sentence pair",
                            plan.gold, lines));
  }
  const GoldAlignment gold =
      parse_gold_line(gold_line, int(source.words.size()), int(target.words.size()), plan.gold);
  std::vector<Scored> scored;
  const auto score = [&](std::string name, const Matrix& probs) {
    Scored s{std::move(name), align(probs), {}};
    s.counts.add(s.links, gold);
    scored.push_back(std::move(s));
  };
  for (int l = 0; l < layers; ++l) {
    for (int h = 0; h < heads; ++h)
      score(fmt::format("layer {} · head {}", l, h), maps.probs(l, h));
    score(fmt::format("layer {} · mean", l), mean_of({l}, all_heads));
  }
  score("mean of all", mean_of(all_layers, all_heads));
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    const double x = a.counts.aer(), y = b.counts.aer();
    return !std::isnan(x) && (std::isnan(y) || x < y);
  });
  const auto ratio = [](int64_t n, int64_t d) {
    return d == 0 ? std::string("–") : fmt::format("{:.3f}", double(n) / double(d));
  };
  if (plan.format == TableFormat::json) {
    nlohmann::ordered_json rows_json = nlohmann::ordered_json::array();
    for (const Scored& s : scored) {
      const double aer = s.counts.aer();
      rows_json.push_back(
          {{"map", s.map},
           {"aer", std::isnan(aer) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(aer)},
           {"links", s.counts.a},
           {"sure", s.counts.s},
           {"links_sure", s.counts.a_and_s},
           {"links_possible", s.counts.a_and_p},
           {"alignment", pharaoh(s.links)}});
    }
    nlohmann::ordered_json j{{"model", run.model.name},
                             {"rule", rule},
                             {"rows", plan.predicting ? "predicting" : "input"},
                             {"gold", pharaoh(gold.sure)},
                             {"maps", rows_json}};
    std::cout << j.dump(2) << '\n';
    return;
  }
  std::vector<std::vector<std::string>> table{
      {"rank", "map", "AER", "links", "precision", "recall", "alignment"}};
  for (size_t i = 0; i < scored.size(); ++i) {
    const Scored& s = scored[i];
    const double aer = s.counts.aer();
    table.push_back({std::to_string(i + 1), s.map,
                     std::isnan(aer) ? "–" : fmt::format("{:.3f}", aer), std::to_string(s.counts.a),
                     ratio(s.counts.a_and_p, s.counts.a), ratio(s.counts.a_and_s, s.counts.s),
                     pharaoh(s.links)});
  }
  const std::string title = fmt::format(
      "{} · alignment error rate of every cross-attention head against {} ({}, {}; AER = 1 − "
      "(|A∩S| + |A∩P|) / (|A| + |S|), precision |A∩P| / |A|, recall |A∩S| / |S|)",
      run.model.name, plan.gold, rule, rows);
  std::cout << report_table(title, std::move(table), plan.format,
                            [](size_t col) { return col == 1 || col == 6; });
}

}  // namespace

void add_align_command(CLI::App& app) {
  auto args = std::make_shared<AlignArgs>();
  CLI::App* cmd = app.add_subcommand(
      "align",
      "word alignments from an encoder-decoder's cross-attention, as a Pharaoh line (source-target "
      "word pairs); with --gold, every head ranked by alignment error rate");
  add_input_flags(*cmd, args->in);
  cmd->add_option("--rows", args->rows,
                  "which decoder row aligns a target token: predicting (the row whose output "
                  "predicts it, default) or input (its own row)");
  cmd->add_option("--threshold", args->threshold,
                  "link every source token given at least this weight, instead of the argmax");
  cmd->add_option("--gold", args->gold,
                  "a Pharaoh line (i-j sure, i?j possible) for the pair: rank every head by AER");
  add_table_format_flag(*cmd, args->format, "text, json, markdown or csv (the --gold table)");
  cmd->callback([args] { align_command(*args); });
}

}  // namespace attnviz
