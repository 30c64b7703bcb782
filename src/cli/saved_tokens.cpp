// The inputs' token ids and tokens as --save metadata: one pair per stack's sequence.
#include "attnviz/cli/saved_tokens.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace attnviz {

namespace {

// The tokens of `ids` as the vocabulary spells them: the tokenizer's, else vocab.txt's; null where
// neither holds the id.
nlohmann::json tokens_of(const TextTools& tools, const Tokenizer* tokenizer,
                         const std::vector<int64_t>& ids) {
  nlohmann::json out = nlohmann::json::array();
  for (const int64_t id : ids) {
    std::optional<std::string> token;
    if (tokenizer) {
      token = tokenizer->token(id);
    } else if (id >= 0 && static_cast<size_t>(id) < tools.vocab.tokens.size()) {
      token = tools.vocab.tokens[static_cast<size_t>(id)];
    }
    out.push_back(token ? nlohmann::json(*token) : nlohmann::json(nullptr));
  }
  return out;
}

void add_sequence(std::map<std::string, std::string>& out, const std::string& prefix,
                  const Sequence& seq, const TextTools& tools, bool source) {
  if (seq.ids.empty()) return;  // embeddings or hash-embedded tokens: no ids to join on
  out[prefix + "ids"] = nlohmann::json(seq.ids).dump();
  const nlohmann::json tokens = tokens_of(tools, tools.tokenizer_for(source), seq.ids);
  if (std::all_of(tokens.begin(), tokens.end(),
                  [](const nlohmann::json& t) { return t.is_null(); }))
    return;
  // A token that is not UTF-8 (a hostile GGUF's) is written with U+FFFD rather than refused: the
  // ids are the key to join on, and stay exact.
  out[prefix + "tokens"] = tokens.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::map<std::string, std::string> saved_token_metadata(const PreparedRun& run) {
  std::map<std::string, std::string> out;
  const bool has_source = run.inputs.source.has_value();
  bool source_run = false;
  for (const StackPlan& stack : plan_stacks(run.model, has_source)) {
    const std::string prefix = stack.name.empty() ? "" : stack.name + ".";
    add_sequence(out, prefix, stack.over_source ? *run.inputs.source : run.inputs.target,
                 *run.tools, stack.over_source);
    // --generate: where the generated tokens start in the target.
    if (!stack.over_source && run.n_prompt < run.inputs.target.x.rows())
      out[prefix + "generated_from"] = std::to_string(run.n_prompt);
    source_run = source_run || stack.over_source;
  }
  if (has_source && !source_run) add_sequence(out, "source.", *run.inputs.source, *run.tools, true);
  return out;
}

}  // namespace attnviz
