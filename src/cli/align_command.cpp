// `attnviz align`: word alignments from an encoder-decoder's cross-attention, a Pharaoh line per
// sentence pair; with --gold, every head, each layer's mean and the mean of all ranked by the
// corpus-level alignment error rate.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attnviz/analysis/alignment.hpp"
#include "attnviz/batch/batch_file.hpp"
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
    maps_.insert_or_assign({info.id.layer, info.id.head}, GatheredMap(info));
  }
  void on_block(const AttentionBlock& block) override {
    if (block.info->id.site == Site::cross)
      maps_.at({block.info->id.layer, block.info->id.head}).add(block);
  }
  const Matrix& probs(int layer, int head) const { return maps_.at({layer, head}).probs; }

 private:
  std::map<std::pair<int, int>, GatheredMap> maps_;
};

struct Pair {
  std::string source, target;
  std::string where;  // "pairs.jsonl line 3", or "the pair" for flags
};

// The pairs: --batch's lines ({"source_text", "text"}, and "id", ignored), else the flags' texts.
std::vector<Pair> read_pairs(const AlignPlan& plan) {
  std::vector<Pair> pairs;
  if (plan.batch.empty()) {
    pairs.push_back({read_text_input(plan.in.source, "--source-"),
                     read_text_input(plan.in.target, "--"), "the pair"});
    return pairs;
  }
  for_each_batch_line(plan.batch, [&](int64_t, int64_t line, const std::string& text) {
    const std::string where = fmt::format("{} line {}", plan.batch, line);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("{}: not JSON: {}", where, e.what()));
    }
    const auto field = [&](const char* key) {
      if (!j.is_object() || !j.contains(key) || !j[key].is_string() ||
          j[key].get<std::string>().empty()) {
        throw Error(
            fmt::format("{}: expected {{\"source_text\": …, \"text\": …}} with non-empty "
                        "strings (\"{}\" is not one)",
                        where, key));
      }
      return j[key].get<std::string>();
    };
    for (const auto& [key, value] : j.items()) {
      if (key != "source_text" && key != "text" && key != "id")
        throw Error(fmt::format("{}: unknown field \"{}\" (known: source_text, text, id)", where,
                                printable_text(key)));
    }
    pairs.push_back({field("source_text"), field("text"), where});
  });
  if (pairs.empty()) throw Error(fmt::format("{}: no pair (one JSON object per line)", plan.batch));
  return pairs;
}

// One side's tokens as the run read them, with the word of each: the text encoded again by the
// tokenizer that made the sequence's ids (checked equal), the decoder's start token (no word)
// first.
struct SideWords {
  std::vector<std::string> words;
  std::vector<int> token_words;  // per row of the map's axis
};

SideWords side_words(const Tokenizer& tokenizer, const TextTools& tools, const std::string& text,
                     const Sequence& seq, bool predicting, const std::string& where) {
  const auto pieces = encode_with_bos(tokenizer, text, tools.add_special, tools.bos);
  SideWords s{split_words(text), word_of_pieces(text, pieces)};
  const size_t lead = seq.ids.size() - std::min(seq.ids.size(), pieces.size());
  bool same = seq.ids.size() == pieces.size() + lead && lead <= 1;
  for (size_t i = 0; same && i < pieces.size(); ++i) same = seq.ids[lead + i] == pieces[i].id;
  if (!same) throw Error(fmt::format("align: {}: the tokens differ from the run's", where));
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

// A map align reads: one head, or the mean of several heads of several layers.
struct Candidate {
  std::string name;  // "layer 4 · head 3", "layer 4 · mean", "mean of all"
  std::vector<int> layers, heads;
};

Matrix mean_of(const CrossMaps& maps, const Candidate& c) {
  const Matrix& first = maps.probs(c.layers.at(0), c.heads.at(0));
  Matrix sum = Matrix::Zero(first.rows(), first.cols());
  for (int l : c.layers)
    for (int h : c.heads) sum += maps.probs(l, h);
  return sum / static_cast<float>(c.layers.size() * c.heads.size());
}

std::vector<int> up_to(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[size_t(i)] = i;
  return v;
}

// The map asked for (--layer, --head), else the mean of the penultimate layer's heads.
Candidate chosen(const AlignPlan& plan, const PreparedRun& run, int layers, int heads) {
  Candidate c;
  c.layers = plan.in.selection.layer.empty()         ? std::vector<int>{std::max(0, layers - 2)}
             : run.selection.layer.indices().empty() ? up_to(layers)
                                                     : run.selection.layer.indices();
  c.heads = run.selection.head.indices().empty() ? up_to(heads) : run.selection.head.indices();
  for (size_t i = 0; i < c.layers.size(); ++i)
    c.name += fmt::format("{}{}",
                          i                      ? ", "
                          : c.layers.size() == 1 ? "layer "
                                                 : "layers ",
                          c.layers[i]);
  c.name += c.heads.size() == 1 ? fmt::format(" · head {}", c.heads[0])
                                : fmt::format(" · mean of {}", count_of(c.heads.size(), "head"));
  return c;
}

// Every head, each layer's mean, the mean of all: what --gold ranks.
std::vector<Candidate> every_map(int layers, int heads) {
  std::vector<Candidate> all;
  for (int l = 0; l < layers; ++l) {
    for (int h = 0; h < heads; ++h)
      all.push_back({fmt::format("layer {} · head {}", l, h), {l}, {h}});
    all.push_back({fmt::format("layer {} · mean", l), {l}, up_to(heads)});
  }
  all.push_back({"mean of all", up_to(layers), up_to(heads)});
  return all;
}

std::string words_line(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i)
    out += fmt::format("{}{} {}", i ? " · " : "", i, printable_text(words[i]));
  return out;
}

// --gold: one Pharaoh line per pair, an empty line for a pair without links.
std::vector<std::string> gold_lines(const std::string& file, size_t pairs) {
  std::vector<std::string> lines;
  std::istringstream in(read_text_file(file));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (lines.size() != pairs) {
    throw Error(fmt::format("{}: {} alignment lines, but align was given {}", file, lines.size(),
                            count_of(pairs, "sentence pair")));
  }
  return lines;
}

struct Scored {
  Candidate map;
  AerCounts counts;
  std::string last;  // the alignment of the last pair (of the only one, without --batch)
};

void print_ranking(std::vector<Scored> scored, const AlignPlan& plan, const PreparedRun& run,
                   const std::string& rule, const char* rows, size_t pairs) {
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    const double x = a.counts.aer(), y = b.counts.aer();
    return !std::isnan(x) && (std::isnan(y) || x < y);
  });
  const auto ratio = [](int64_t n, int64_t d) {
    return d == 0 ? std::string("–") : fmt::format("{:.3f}", double(n) / double(d));
  };
  if (plan.format == TableFormat::json) {
    nlohmann::ordered_json maps = nlohmann::ordered_json::array();
    for (const Scored& s : scored) {
      const double aer = s.counts.aer();
      nlohmann::ordered_json m{
          {"map", s.map.name},
          {"aer", std::isnan(aer) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(aer)},
          {"links", s.counts.a},
          {"sure", s.counts.s},
          {"links_sure", s.counts.a_and_s},
          {"links_possible", s.counts.a_and_p}};
      if (pairs == 1) m["alignment"] = s.last;
      maps.push_back(m);
    }
    nlohmann::ordered_json j{{"model", run.model.name},
                             {"pairs", pairs},
                             {"rule", rule},
                             {"rows", plan.predicting ? "predicting" : "input"},
                             {"maps", maps}};
    std::cout << j.dump(2) << '\n';
    return;
  }
  std::vector<std::vector<std::string>> table{
      {"rank", "map", "AER", "links", "precision", "recall"}};
  if (pairs == 1) table[0].push_back("alignment");
  for (size_t i = 0; i < scored.size(); ++i) {
    const Scored& s = scored[i];
    const double aer = s.counts.aer();
    table.push_back({std::to_string(i + 1), s.map.name,
                     std::isnan(aer) ? "–" : fmt::format("{:.3f}", aer), std::to_string(s.counts.a),
                     ratio(s.counts.a_and_p, s.counts.a), ratio(s.counts.a_and_s, s.counts.s)});
    if (pairs == 1) table.back().push_back(s.last);
  }
  const std::string title = fmt::format(
      "{} · alignment error rate of every cross-attention head over {} against {} ({}, {}; AER = "
      "1 − (|A∩S| + |A∩P|) / (|A| + |S|), precision |A∩P| / |A|, recall |A∩S| / |S|)",
      run.model.name, count_of(pairs, "sentence pair"), plan.gold, rule, rows);
  std::cout << report_table(title, std::move(table), plan.format,
                            [](size_t col) { return col == 1 || col == 6; });
}

void align_command(const AlignArgs& args) {
  const AlignPlan plan = resolve_align(args);
  const std::vector<Pair> pairs = read_pairs(plan);
  const std::vector<std::string> gold =
      plan.gold.empty() ? std::vector<std::string>{} : gold_lines(plan.gold, pairs.size());
  // The model once; each pair's texts as --source-text and --text.
  const auto texts_of = [&](const Pair& p) {
    InputArgs in = plan.in;
    in.source = SequenceFlags{};
    in.target = SequenceFlags{};
    in.source.text = p.source;
    in.target.text = p.target;
    in.source.text_given = in.target.text_given = true;
    return in;
  };
  PreparedRun run = prepare_model(texts_of(pairs.front()), TokenizerUse::text);
  const Config& c = run.model.config;
  if (c.arch != Arch::encoder_decoder && !c.decoder_cross) {
    throw usage_error(fmt::format("align reads cross-attention: {} ({}) has none", run.model.name,
                                  arch_name(c.arch)));
  }
  for (const int l : run.selection.layer.indices()) {
    if (l >= c.n_decoder_layers) {
      throw usage_error(
          fmt::format("--layer {}: the decoder has {} (0–{}), and only its layers "
                      "attend across",
                      l, count_of(c.n_decoder_layers, "layer"), c.n_decoder_layers - 1));
    }
  }
  const std::string rule = plan.rule.kind == AlignRule::Kind::argmax
                               ? "argmax"
                               : fmt::format("weight ≥ {:g}", plan.rule.threshold);
  const char* rows =
      plan.predicting ? "the row predicting each target token" : "each target token's own row";
  const int heads = c.n_heads, layers = c.n_decoder_layers;
  const Candidate one = chosen(plan, run, layers, heads);
  std::vector<Scored> scored;
  for (const Candidate& m : every_map(layers, heads)) scored.push_back({m, {}, {}});
  BatchNotes notes;
  nlohmann::ordered_json json_pairs = nlohmann::ordered_json::array();
  for (size_t i = 0; i < pairs.size(); ++i) {
    const Pair& p = pairs[i];
    const InputArgs in = texts_of(p);
    std::vector<std::string> input_notes = prepare_inputs(run, in);
    const TextTools& tools = *run.tools;
    const SideWords source = side_words(*tools.tokenizer_for(true), tools, p.source,
                                        *run.inputs.source, false, p.where + ": the source");
    const SideWords target = side_words(*tools.tokenizer, tools, p.target, run.inputs.target,
                                        plan.predicting, p.where + ": the target");
    CrossMaps maps;
    run_collecting(run, maps);
    const auto align = [&](const Candidate& m) {
      return align_words(aligned_rows(mean_of(maps, m), plan.predicting), target.token_words,
                         source.token_words, plan.rule);
    };
    if (pairs.size() == 1) {
      for (const auto& note : input_notes) print_note(note);
    } else {
      notes.add(static_cast<int64_t>(i + 1), input_notes);
    }
    if (!gold.empty()) {
      const GoldAlignment g =
          parse_gold_line(gold[i], int(source.words.size()), int(target.words.size()),
                          fmt::format("{} line {}", plan.gold, i + 1));
      for (Scored& s : scored) {
        const Alignment a = align(s.map);
        s.counts.add(a, g);
        s.last = pharaoh(a);
      }
      continue;
    }
    const Alignment links = align(one);
    if (plan.format == TableFormat::json) {
      json_pairs.push_back({{"source_words", source.words},
                            {"target_words", target.words},
                            {"alignment", pharaoh(links)}});
      continue;
    }
    if (pairs.size() == 1) {
      print_note(fmt::format("cross-attention of {}, {}, {}; source words: {}; target words: {}",
                             one.name, rule, rows, words_line(source.words),
                             words_line(target.words)));
    }
    std::cout << pharaoh(links) << '\n';
  }
  if (pairs.size() > 1) notes.report(std::cerr, "note", static_cast<int64_t>(pairs.size()));
  if (!gold.empty()) {
    print_ranking(std::move(scored), plan, run, rule, rows, pairs.size());
  } else if (plan.format == TableFormat::json) {
    nlohmann::ordered_json j{{"model", run.model.name},
                             {"map", one.name},
                             {"layers", one.layers},
                             {"heads", one.heads},
                             {"rule", rule},
                             {"rows", plan.predicting ? "predicting" : "input"},
                             {"pairs", json_pairs}};
    std::cout << j.dump(2) << '\n';
  } else if (pairs.size() > 1) {
    print_note(fmt::format("cross-attention of {}, {}, {}: a Pharaoh line per pair", one.name, rule,
                           rows));
  }
}

}  // namespace

void add_align_command(CLI::App& app) {
  auto args = std::make_shared<AlignArgs>();
  CLI::App* cmd = app.add_subcommand(
      "align",
      "word alignments from an encoder-decoder's cross-attention, a Pharaoh line (source-target "
      "word pairs) per sentence pair; with --gold, every head ranked by alignment error rate");
  add_input_flags(*cmd, args->in);
  cmd->add_option("--batch", args->batch,
                  "sentence pairs, one JSON object per line: {\"source_text\": …, \"text\": …}");
  cmd->add_option("--rows", args->rows,
                  "which decoder row aligns a target token: predicting (the row whose output "
                  "predicts it, default) or input (its own row)");
  cmd->add_option("--threshold", args->threshold,
                  "link every source token given at least this weight, instead of the argmax");
  cmd->add_option("--gold", args->gold,
                  "Pharaoh lines (i-j sure, i?j possible), one per pair: every head ranked by the "
                  "alignment error rate over all pairs");
  add_table_format_flag(*cmd, args->format, "text, json, markdown or csv (the --gold table)");
  cmd->callback([args] { align_command(*args); });
}

}  // namespace attnviz
