// The --batch flags of heads, stats and check, and a line's input as the input flags give it
// (the file itself: attnviz/batch/batch_file.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "attnviz/batch/batch_file.hpp"
#include "attnviz/cli/inputs.hpp"
#include "attnviz/cli/prepare.hpp"
#include "attnviz/cli/run_args.hpp"

namespace attnviz::detail {

// The input of one line (batch_line's), as --text or --ids would give it.
SequenceFlags batch_sequence(const nlohmann::json& line);
// The tokenizer use a scanned batch needs: text if any line has "text", else labels for ids.
inline TokenizerUse tokenizer_use(const BatchScan& scan) {
  return scan.any_text ? TokenizerUse::text : TokenizerUse::labels;
}

// --batch FILE and --shard K/N on a subcommand; `what` says what is done to each input, `then` what
// the output is (both for the help text).
void add_batch_flags(CLI::App& cmd, std::string& file, std::string& shard, const std::string& what,
                     const std::string& then);
// A batch reads its inputs from its file: input flags beside it, and a --mask file (it fits one
// length), are usage Errors.
void refuse_inputs_beside_batch(const InputArgs& in);

// Everything besides an --items header's own fields that decides a batch's numbers, as one line:
// shards of one run agree on it (the weights themselves are named by the model's configuration line
// only; run_batch adds the batch's own hash).
std::string batch_settings(const InputArgs& in, const PreparedRun& run);

}  // namespace attnviz::detail
