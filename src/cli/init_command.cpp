// `attnviz init`: write a seeded random multi-head attention model (no download needed).
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "attnviz/cli/validators.hpp"
#include "attnviz/cli/commands.hpp"
#include "attnviz/model/init.hpp"
#include "attnviz/inputs/tokens.hpp"

namespace attnviz {

void add_init_command(CLI::App& app) {
  struct Args {
    InitOptions options;
    std::string out;
    std::string vocab_file;
    bool no_out_proj = false;
  };
  auto args = std::make_shared<Args>();
  InitOptions& o = args->options;
  CLI::App* cmd = app.add_subcommand("init", "write a random model of any architecture");
  cmd->add_option("--arch", o.arch, "mha, encoder, decoder, encoder-decoder, gpt2 or bert")
      ->check(CLI::IsMember({"mha", "encoder", "decoder", "encoder-decoder", "gpt2", "bert"}));
  cmd->add_option("--layers", o.n_layers, "layers per stack")->check(positive_number());
  cmd->add_option("--d-ff", o.d_ff, "feed-forward width (default 4 · d_model)")->check(positive_number());
  cmd->add_flag("--norm-first", o.norm_first, "pre-norm layers (encoder, encoder-decoder)");
  cmd->add_option("--output,-o", args->out, "folder to write model.safetensors and config.json")
      ->required();
  cmd->add_option("--d-model", o.d_model, "input width")->check(positive_number());
  cmd->add_option("--heads", o.n_heads, "number of heads")->check(positive_number());
  cmd->add_option("--d-qk", o.d_qk, "mha: total query/key width (default d_model)")
      ->check(positive_number());
  cmd->add_option("--d-v", o.d_v, "mha: total value width (default d_model)")->check(positive_number());
  cmd->add_option("--max-positions", o.max_positions, "longest input accepted (default: no limit; 512 learned positions for decoder, gpt2, bert)")
      ->check(non_negative_number());
  cmd->add_option("--seed", o.seed, "random seed");
  cmd->add_option("--vocab", args->vocab_file,
                  "token file: adds an embedding table with one row per distinct token and vocab.txt");
  cmd->add_flag("--no-out-proj", args->no_out_proj, "no output projection (seed 000 SelfAttention)");
  cmd->callback([args] {
    args->options.out_proj = !args->no_out_proj;
    if (!args->vocab_file.empty()) {
      for (auto& token : read_tokens(args->vocab_file)) {
        auto& v = args->options.vocab;
        if (std::find(v.begin(), v.end(), token) == v.end()) v.push_back(std::move(token));
      }
    }
    init_model(args->out, args->options);
    std::cerr << fmt::format("attnviz: wrote {}/model.safetensors and config.json\n", args->out);
  });
}

}  // namespace attnviz
