// `attnviz init`: write a seeded random multi-head attention model (no download needed).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/validators.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokenizer.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/pipeline/tokenizer_writer.hpp"
#include "attnviz/inputs/tokens.hpp"
#include "attnviz/io/text_file.hpp"
#include "attnviz/model/family.hpp"
#include "attnviz/model/init.hpp"

namespace attnviz {

namespace {

// --tokenizer: the user's tokenizer.json (its size is the table's), copied beside the weights with
// the tokenizer_config.json beside it (add_bos_token and the special tokens live there).
void user_tokenizer(InitOptions& o, const std::filesystem::path& file) {
  const auto tokenizer = find_tokenizer(file);
  if (!tokenizer || file.filename() != "tokenizer.json") {
    throw usage_error(
        fmt::format("init --tokenizer {}: expected a tokenizer.json file", file.string()));
  }
  o.vocab_size = static_cast<int>(tokenizer->vocab_size());
  o.tokenizer_json = read_text_file(file);
  const std::filesystem::path config = file.parent_path() / "tokenizer_config.json";
  std::error_code ec;
  if (std::filesystem::exists(config, ec)) o.tokenizer_config_json = read_text_file(config);
}

// The tokenizer a family's model gets without --tokenizer (init_writes_tokenizer): a byte-level one
// with the family's special tokens and beginning-of-text token.
void default_tokenizer(InitOptions& o) {
  const FamilyInit& f = *init_family(o.arch)->init;
  o.tokenizer_json = byte_level_tokenizer_json(f.special_tokens, f.bos);
  o.vocab_size = 256 + static_cast<int>(f.special_tokens.size());
  o.bos_token = f.bos;
  o.eos_token = f.eos;
}

// The families whose vocabulary `which` says.
std::string families_with(std::initializer_list<InitVocabulary> which) {
  std::vector<std::string> names;
  for (const auto& f : families()) {
    if (f.init && std::find(which.begin(), which.end(), f.init->vocabulary) != which.end())
      names.push_back(f.init_arch());
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

void add_init_command(CLI::App& app) {
  struct Args {
    InitOptions options;
    std::string out;
    std::string vocab_file;
    bool no_out_proj = false;
    std::string tokenizer;
  };
  auto args = std::make_shared<Args>();
  InitOptions& o = args->options;
  CLI::App* cmd = app.add_subcommand("init", "write a random model of any architecture");
  cmd->add_option("--arch", o.arch,
                  fmt::format("the model to write, by its family's --arch name (see `attnviz "
                              "families`): {}",
                              fmt::join(init_family_names(), ", ")))
      ->check(CLI::IsMember(init_family_names()));
  cmd->add_option("--kv-heads", o.n_kv_heads,
                  "key/value heads of a grouped-query family (default: half the heads)")
      ->check(positive_number());
  using V = InitVocabulary;
  cmd->add_option(
      "--tokenizer", args->tokenizer,
      fmt::format(
          "a tokenizer.json, copied beside the weights with the tokenizer_config.json beside it; "
          "the token table gets one row per id ({}; default for {} without "
          "--vocab: a byte-level tokenizer, one id per UTF-8 byte, with the family's special "
          "tokens)",
          families_with({V::tokenizer, V::tokenizer_default, V::required, V::optional}),
          families_with({V::tokenizer, V::tokenizer_default})));
  cmd->add_option("--layers", o.n_layers, "layers per stack")->check(positive_number());
  cmd->add_option("--d-ff", o.d_ff, "feed-forward width (default 4 · d_model)")
      ->check(positive_number());
  cmd->add_flag("--norm-first", o.norm_first, "pre-norm layers (encoder, encoder-decoder)");
  cmd->add_option(
      "--gguf", o.gguf_type,
      fmt::format("the model as one GGUF file (-o names the file), as llama.cpp converts and "
                  "quantises it ({}): F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K_M, "
                  "Q4_K_M, Q5_K_M, Q6_K",
                  fmt::join(init_gguf_family_names(), ", ")));
  cmd->add_option("--output,-o", args->out,
                  "folder to write model.safetensors and config.json (--gguf: the file)")
      ->required();
  cmd->add_option("--d-model", o.d_model, "input width")->check(positive_number());
  cmd->add_option("--heads", o.n_heads, "number of heads")->check(positive_number());
  cmd->add_option("--d-qk", o.d_qk, "mha: total query/key width (default d_model)")
      ->check(positive_number());
  cmd->add_option("--d-v", o.d_v, "mha: total value width (default d_model)")
      ->check(positive_number());
  cmd->add_option("--max-positions", o.max_positions,
                  "longest input accepted (default: no limit; 512 for learned positions)")
      ->check(non_negative_number());
  cmd->add_option("--seed", o.seed, "random seed");
  cmd->add_option(
      "--vocab", args->vocab_file,
      fmt::format("token file: adds an embedding table with one row per distinct token and "
                  "vocab.txt ({}; {} needs it or --tokenizer)",
                  families_with({V::tokenizer_default, V::required, V::optional}),
                  families_with({V::required})));
  cmd->add_flag("--no-out-proj", args->no_out_proj,
                "no output projection (q, k, v only, as a tutorial's SelfAttention)");
  cmd->callback([args] {
    args->options.out_proj = !args->no_out_proj;
    if (!args->vocab_file.empty()) {
      for (auto& token : read_tokens(args->vocab_file)) {
        auto& v = args->options.vocab;
        if (std::find(v.begin(), v.end(), token) == v.end()) v.push_back(std::move(token));
      }
    }
    InitOptions& opts = args->options;
    if (!args->tokenizer.empty()) {
      user_tokenizer(opts, args->tokenizer);  // init_model refuses it where no table can use it
    } else if (init_writes_tokenizer(opts)) {
      default_tokenizer(opts);
    }
    const std::vector<std::string> written = init_model(args->out, args->options);
    if (args->options.gguf_type.empty()) {  // "DIR/model.safetensors, config.json and vocab.txt"
      const std::vector<std::string> rest(written.begin() + 1, written.end() - 1);
      std::cerr << fmt::format("attnviz: wrote {}/{}{}{} and {}\n", args->out, written.front(),
                               rest.empty() ? "" : ", ", fmt::join(rest, ", "), written.back());
    } else {
      std::cerr << fmt::format("attnviz: wrote {} ({})\n", args->out, args->options.gguf_type);
    }
  });
}

}  // namespace attnviz
