// The input flags shared by every command that runs a model (run, stats, check).
#include "attnviz/cli/run_args.hpp"
#include "attnviz/cli/validators.hpp"

namespace attnviz {

std::string text_file_help(const std::string& what) {
  return what +
         ", - for stdin; one final newline (\\n or \\r\\n, as editors end a file) is dropped";
}

void add_tokenizer_flags(CLI::App& cmd, std::string& tokenizer, bool& no_special_tokens,
                         std::string& bos) {
  cmd.add_option("--tokenizer", tokenizer,
                 "the tokenizer: its folder or file (tokenizer.json, vocab.json + merges.txt, "
                 "tokenizer.model, vocab.txt); default: the model's folder");
  cmd.add_flag("--no-special-tokens", no_special_tokens,
               "leave out the special tokens the tokenizer adds ([CLS] … [SEP], <s>, "
               "<|begin_of_text|>; GPT-2 adds none)");
  cmd.add_option("--bos", bos,
                 "the BOS token before the text: auto (as the tokenizer adds it), always (put "
                 "first when not added, as "
                 "TransformerLens does; <|endoftext|> for GPT-2), never (left out)")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

void add_sequence_flags(CLI::App& cmd, SequenceFlags& f, const SequenceFlagNames& names) {
  const auto flag = [&](const char* name) { return "--" + names.prefix + name; };
  const std::string& whose = names.whose;
  cmd.add_option(flag("text"), f.text, whose + "text, turned into ids by the model's tokenizer")
      ->each([&f](const std::string&) { f.text_given = true; });  // "" is an empty text, not none
  cmd.add_option(flag("text-file"), f.text_file,
                 text_file_help(whose + "UTF-8 text file for the tokenizer"));
  cmd.add_option(flag("tokens") + (names.prefix.empty() ? ",-t" : ""), f.tokens,
                 whose + "UTF-8 token file (whitespace-separated), - for stdin");
  cmd.add_option(flag("ids"), f.ids, whose + "token ids: \"5 17 3\" or a file holding them");
  cmd.add_option(flag("embeddings"), f.embeddings,
                 whose + ".npy [N, d_model] fed to the layer directly");
  if (names.prefix.empty()) {
    cmd.add_option("--pixels", f.pixels,
                   "a vision model's image as it reads it: .npy [channels, height, width] (or "
                   "[1, channels, height, width]) of the processor's output, fed to the patch "
                   "embedding exactly");
    cmd.add_option("--image", f.image,
                   "a vision model's image: a PNG or JPEG file, resized, cropped and normalised as "
                   "the model folder's preprocessor_config.json says (as transformers' processor "
                   "does, with Pillow's resampling)");
    cmd.add_option("--features", f.features,
                   "a CNN feature map as the input: .npy [channels, height, width] (or [1, …]), a "
                   "token per pixel (its channels), labelled (row,col), for a SAGAN-style "
                   "self-attention block");
  }
  if (!names.probe) return;
  cmd.add_option(
      flag("probe"), f.probe,
      whose +
          "a built-in input of random token ids: repeat:N (N distinct tokens, then the "
          "same N again: the induction probe) or duplicate:N (then the same N shuffled)");
  cmd.add_option(flag("seed"), f.probe_seed,
                 names.seed_help.empty()
                     ? whose + "seed of --probe's random tokens: 0 to 2^64 - 1 (default 0)"
                     : names.seed_help);
}

void add_input_flags(CLI::App& cmd, InputArgs& in) {
  in.bound.command =
      cmd.get_name();  // named in the refusal of a longer input (rollout and explain lower it)
  cmd.add_option("--model,-m", in.model,
                 ".safetensors or .gguf file, model folder, or Hugging Face cache id "
                 "(org/name[@revision], never downloaded)")
      ->required();
  add_sequence_flags(cmd, in.target, {});
  add_sequence_flags(
      cmd, in.source,
      {.prefix = "source-", .whose = "cross-attention source: ", .probe = false, .seed_help = ""});
  add_tokenizer_flags(cmd, in.tokenizer, in.no_special_tokens, in.bos);
  cmd.add_option("--source-lang", in.source_lang,
                 "the source text's language code, for a translation tokenizer that marks it "
                 "(NLLB: eng_Latn, its default)");
  cmd.add_option("--target-lang", in.target_lang,
                 "the target's language code (NLLB: fra_Latn, …): around --text, and after "
                 "decoder_start_token_id when --generate starts the target");
  add_model_flags(cmd, in.model_flags);
  cmd.add_flag("--no-positions", in.no_positions,
               "run the model without its positional encoding (learned, sinusoidal, rotary, or a "
               "relative position bias): the "
               "maps then "
               "permute with the tokens (permutation equivariance)");
  cmd.add_flag("--causal", in.causal, "causal mask: query i sees keys j <= i");
  cmd.add_option("--pad", in.pad, "the last N target tokens are padding")
      ->check(non_negative_number());
  cmd.add_option("--source-pad", in.source_pad, "the last N source tokens are padding")
      ->check(non_negative_number());
  cmd.add_option("--window", in.window, "sliding-window mask: query i sees keys with |i - j| < W")
      ->check(non_negative_number());
  cmd.add_option("--mask", in.mask_file,
                 "mask [queries, keys] (text or .npy): 0/1, bool or additive 0/-inf");
  cmd.add_option("--mask-convention", in.mask_convention,
                 "what --mask values mean: auto, keep (1 = attend), block (1/True = masked, as "
                 "nn.MultiheadAttention), additive (0 / -inf)")
      ->check(CLI::IsMember({"auto", "keep", "block", "additive"}));
  cmd.add_option("--qk-scale", in.qk_scale,
                 "factor on q·k: a number, or none (default 1/sqrt(d_k))");
  cmd.add_option("--block-rows", in.block_rows, "query rows per streamed block")
      ->check(positive_number());
  cmd.add_option("--generate", in.generate,
                 "greedy decoding first: append the model's next N tokens (the argmax each step, "
                 "stopping at its EOS; an encoder-decoder from decoder_start_token_id when no "
                 "target is given), then run on the whole sequence")
      ->check(positive_number());
  add_selection_flags(cmd, in.selection);
}

}  // namespace attnviz
