// The two runs of an inline diff, saved into a temp folder one after the other (one model in memory
// at a time).
#include "diff_runs.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <tuple>

#include "attnviz/cli/collect.hpp"
#include "attnviz/cli/prepare.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/io/signal_cleanup.hpp"
#include "attnviz/sinks/save_sink.hpp"

namespace attnviz::detail {

namespace {

// What an input flag gave, short, for the report's title: "\"The cat sat…\"", "ids 5 17 3", a file.
std::string describe_input(const SequenceFlags& f) {
  const auto shorten = [](const std::string& s) {
    return truncate_to_width(s, 24);
  };  // whole characters
  if (!f.text.empty()) return "\"" + shorten(f.text) + "\"";
  if (!f.text_file.empty()) return f.text_file;
  if (!f.tokens.empty()) return f.tokens;
  if (!f.ids.empty()) return "ids " + shorten(f.ids);
  if (!f.probe.empty())
    return fmt::format("probe {} seed {}", f.probe, f.probe_seed.empty() ? "0" : f.probe_seed);
  if (!f.embeddings.empty()) return f.embeddings;
  return "?";
}

// Two texts that differ: each from a little before the first byte where they differ (at a whole
// character), so titles cut to 24 columns keep what changed in view: "\"…sat on the mat\"".
std::pair<std::string, std::string> describe_texts(const std::string& a, const std::string& b) {
  const size_t at =
      static_cast<size_t>(std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first - a.begin());
  size_t begin = at > 12 ? at - 12 : 0;
  while (begin > 0 && (static_cast<unsigned char>(a[begin]) & 0xC0) == 0x80) --begin;
  const auto shown = [begin](const std::string& s) {
    const std::string tail =
        truncate_to_width(std::string_view(s).substr(begin), begin > 0 ? 23 : 24);
    return "\"" + std::string(begin > 0 ? "…" : "") + tail + "\"";
  };
  return {shown(a), shown(b)};
}

void save_run(const InputArgs& in, const std::filesystem::path& file, std::string& model_name) {
  const PreparedRun run = prepare_run(in);
  model_name = run.model.name;
  SaveOptions options;  // f32: the differences are of the model's own numbers, not of rounded ones
  options.selection = run.selection;
  SaveSink save(file, options);
  run_collecting(run, save);
  save.finish();
}

}  // namespace

bool same_input(const SequenceFlags& a, const SequenceFlags& b) {
  return a.tokens == b.tokens && a.ids == b.ids && a.embeddings == b.embeddings &&
         a.text == b.text && a.text_file == b.text_file && a.probe == b.probe &&
         (a.probe.empty() || (a.probe_seed.empty() ? "0" : a.probe_seed) ==
                                 (b.probe_seed.empty() ? "0" : b.probe_seed));
}

InputArgs run_b_args(const InputArgs& a, const RunBFlags& b) {
  InputArgs out = a;
  if (!b.model.empty()) out.model = b.model;
  if (b.target.given()) {
    out.target = b.target;
    // a --b-probe keeps A's --seed unless --b-seed says otherwise
    if (!b.target.probe.empty() && b.target.probe_seed.empty())
      out.target.probe_seed = a.target.probe_seed;
  } else if (!b.target.probe_seed.empty()) {
    if (a.target.probe.empty())
      throw usage_error("--b-seed: A's input is no --probe, so there is no seed to change");
    out.target.probe_seed = b.target.probe_seed;
  }
  return out;
}

InlineRuns::InlineRuns(const InputArgs& a, const RunBFlags& b) {
  if (!b.any()) {
    throw usage_error(
        "diff -m: B would be the same run as A; give what differs in B (--b-model, --b-text, "
        "--b-tokens, "
        "--b-ids, --b-text-file, --b-embeddings, --b-probe or --b-seed), or two --save files");
  }
  const InputArgs in_b = run_b_args(a, b);
  if (in_b.model == a.model && same_input(in_b.target, a.target)) {
    throw usage_error(
        "diff -m: the --b-… flags give B the same model and input as A: nothing would differ");
  }
  install_signal_cleanup();
  const char* tmp = std::getenv("TMPDIR");
  const std::string base = tmp && *tmp ? tmp : "/tmp";
  const RegisteredTemp t =
      create_registered_temp(base + "/attnviz-diff.tmp-XXXXXX", CleanupKind::directory);
  if (t.path.empty())
    throw Error(fmt::format("{}: cannot create a temp folder for the two runs: {}", base,
                            std::strerror(errno)));
  dir_ = t.path;
  slot_ = t.slot;
  try {
    std::string model_a, model_b;
    save_run(a, this->a(), model_a);
    save_run(in_b, this->b(), model_b);
    if (model_a != model_b || a.model != in_b.model) {
      name_a_ = "A " + model_a, name_b_ = "B " + model_b;
    } else {
      std::string what_a = describe_input(a.target), what_b = describe_input(in_b.target);
      if (!a.target.text.empty() && !in_b.target.text.empty() &&
          a.target.text != in_b.target.text) {
        std::tie(what_a, what_b) = describe_texts(a.target.text, in_b.target.text);
      }
      name_a_ = fmt::format("A {} {}", model_a, what_a);
      name_b_ = fmt::format("B {}", what_b);
    }
  } catch (...) {
    remove();  // a throwing constructor runs no destructor
    throw;
  }
}

InlineRuns::~InlineRuns() {
  remove();
}

void InlineRuns::remove() {
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
  if (slot_ >= 0) unregister_cleanup(slot_);
  dir_.clear();
}

}  // namespace attnviz::detail
