// The inputs' token ids and tokens as --save metadata, so saved maps can be joined with a user's
// own data in NumPy (the labels alone are for display: "␣cat" is no token of any vocabulary).
#pragma once

#include <map>
#include <string>

#include "attnviz/cli/prepare.hpp"

namespace attnviz {

// "ids" and "tokens" (JSON arrays, tokens spelt as the vocabulary spells them, null for an id it
// lacks) of the sequence each stack runs over: "{stack}.ids" / "{stack}.tokens" where the model has
// several stacks, "source.ids" / "source.tokens" for a source only attended across to; with
// --generate, "{stack.}generated_from": the target index of the first generated token. Nothing for
// a sequence without ids (--embeddings, or tokens hash-embedded by a model without a table), and no
// tokens where neither tokenizer nor vocab.txt spells any of the ids.
std::map<std::string, std::string> saved_token_metadata(const PreparedRun& run);

}  // namespace attnviz
