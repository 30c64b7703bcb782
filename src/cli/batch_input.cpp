// The --batch flags, and a batch line's input as the input flags would give it.
#include "batch_input.hpp"

#include <fmt/format.h>

#include "attnviz/model/model.hpp"

namespace attnviz::detail {

SequenceFlags batch_sequence(const nlohmann::json& j) {
  const BatchLine line = batch_line(j);
  SequenceFlags f;
  if (line.text) f.text = *line.text;
  for (const uint64_t id : line.ids) f.ids += std::to_string(id) + ' ';
  if (line.image) f.image = *line.image;
  if (line.pixels) f.pixels = *line.pixels;
  return f;
}

void add_batch_flags(CLI::App& cmd, std::string& file, std::string& shard, const std::string& what,
                     const std::string& then) {
  cmd.add_option(
      "--batch", file,
      what +
          " every input of a JSON-lines file ({\"text\": …}, {\"ids\": […]}, or a vision model's "
          "{\"image\": PATH} or {\"pixels\": PATH} per line, optional \"id\"), one at a time; " +
          then);
  cmd.add_option("--shard", shard,
                 "with --batch: only the inputs i with i mod N = K (K/N, e.g. 0/4)");
}

void refuse_inputs_beside_batch(const InputArgs& in) {
  if (in.target.given()) {
    throw usage_error(
        "--batch reads the inputs from its file: no --text, --ids, --tokens, --embeddings, "
        "--probe, --image, --pixels or --features");
  }
  if (!in.mask_file.empty()) {
    throw usage_error(
        "--batch with --mask: a mask file fits one input's length; use --causal, --pad or "
        "--window");
  }
}

std::string batch_settings(const InputArgs& in, const PreparedRun& run) {
  const auto& sel = in.selection;
  return fmt::format(
      "config: {} | causal {} pad {} window {} qk-scale '{}' | layer '{}' site '{}' head '{}' | "
      "source: text '{}' text-file '{}' tokens '{}' ids '{}' embeddings '{}' pad {} | tokenizer "
      "'{}' "
      "no-special-tokens {} bos {}",
      describe_config(run.model.config), in.causal, in.pad, in.window, in.qk_scale, sel.layer,
      sel.site, sel.head, in.source.text, in.source.text_file, in.source.tokens, in.source.ids,
      in.source.embeddings, in.source_pad, in.tokenizer, in.no_special_tokens, in.bos);
}

}  // namespace attnviz::detail
