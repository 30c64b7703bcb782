// `attnviz tokenize`: what the model sees of a text — ids, pieces and byte offsets.
#include <fmt/format.h>

#include <array>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/inputs.hpp"
#include "attnviz/cli/notes.hpp"
#include "attnviz/core/error.hpp"
#include "attnviz/core/plural.hpp"
#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/io/gguf/gguf.hpp"
#include "attnviz/model/locate/hf_cache.hpp"
#include "attnviz/render/table.hpp"

namespace attnviz {

namespace {

namespace fs = std::filesystem;

struct TokenizeArgs {
  std::string model;      // a model folder or weights file: its folder holds the tokenizer
  std::string tokenizer;  // or the tokenizer's folder itself
  SequenceFlags text;
  bool no_special_tokens = false;
  std::string bos = "auto";
  std::string format = "text";
};

// Every row: index, id, piece and bytes, aligned by display width.
std::string as_text(const Tokenizer& t, const std::vector<TokenPiece>& pieces) {
  std::vector<std::array<std::string, 4>> rows{{"index", "id", "piece", "bytes"}};
  for (size_t i = 0; i < pieces.size(); ++i) {
    const TokenPiece& p = pieces[i];
    rows.push_back({std::to_string(i), std::to_string(p.id), p.label,
                    p.added ? "added" : fmt::format("{}-{}", p.begin, p.end)});
  }
  std::array<int, 4> widths{};
  for (const auto& r : rows) {
    for (size_t c = 0; c < 4; ++c) widths[c] = std::max(widths[c], display_width(r[c]));
  }
  std::string out = fmt::format("{} · {}\n", t.description(),
                                count_of(static_cast<long long>(pieces.size()), "token"));
  for (const auto& r : rows) {
    out += pad_to_width(r[0], widths[0], true) + "  " + pad_to_width(r[1], widths[1], true) + "  " +
           pad_to_width(r[2], widths[2]) + "  " + r[3] + "\n";
  }
  return out;
}

std::string as_json(const Tokenizer& t, const std::vector<TokenPiece>& pieces) {
  nlohmann::ordered_json doc;
  doc["tokenizer"] = t.description();
  doc["tokens"] = nlohmann::ordered_json::array();
  for (const TokenPiece& p : pieces) {
    doc["tokens"].push_back(
        {{"id", p.id}, {"piece", p.label}, {"begin", p.begin}, {"end", p.end}, {"added", p.added}});
  }
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string as_csv(const std::vector<TokenPiece>& pieces) {
  std::string out = "index,id,piece,begin,end\n";
  for (size_t i = 0; i < pieces.size(); ++i) {
    const TokenPiece& p = pieces[i];
    out += fmt::format("{},{},{},{},{}\n", i, p.id, csv_field(p.label), p.begin, p.end);
  }
  return out;
}

void tokenize_command(const TokenizeArgs& a) {
  if (a.model.empty() == a.tokenizer.empty()) {
    throw usage_error("tokenize: give the model (-m) or the tokenizer (--tokenizer), one of them");
  }
  if (!a.text.given()) throw usage_error("tokenize: give --text or --text-file");
  const std::string text =
      read_text_input(a.text, "--");  // an empty --text is refused before any file is read
  // -m resolves as run's does (a path, or a Hugging Face cache id); --tokenizer is a path.
  fs::path dir = a.tokenizer.empty() ? locate_model(a.model, HfEnvironment::of_process()).path
                                     : fs::path(a.tokenizer);
  std::error_code ec;
  if (!fs::exists(dir, ec)) throw Error(fmt::format("{}: no such file or folder", dir.string()));
  if (!fs::is_directory(dir, ec) && a.tokenizer.empty() && !is_gguf_file(dir)) {
    dir = dir.parent_path().empty() ? fs::path(".")
                                    : dir.parent_path();  // a weights file: its folder
  }                                                       // a GGUF file carries its own tokenizer
  const std::unique_ptr<Tokenizer> t = find_tokenizer(dir);
  if (!t) {
    throw usage_error(fmt::format("{} holds no tokenizer attnviz reads (looked for {})",
                                  dir.string(), k_tokenizer_files));
  }
  const auto pieces = encode_with_bos(*t, text, !a.no_special_tokens, bos_mode_of(a.bos));
  if (const std::string note = unknown_pieces_note(*t, pieces); !note.empty()) print_note(note);
  if (a.format == "json") {
    std::cout << as_json(*t, pieces);
  } else if (a.format == "csv") {
    std::cout << as_csv(pieces);
  } else {
    std::cout << as_text(*t, pieces);
  }
}

}  // namespace

void add_tokenize_command(CLI::App& app) {
  auto args = std::make_shared<TokenizeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "tokenize", "show the ids, pieces and byte offsets a model's tokenizer makes of a text");
  cmd->add_option(
      "--model,-m", args->model,
      "model folder (or a weights file in it, or a Hugging Face cache id) holding the tokenizer");
  cmd->add_option("--text", args->text.text, "the text")->each([args](const std::string&) {
    args->text.text_given = true;
  });
  cmd->add_option("--text-file", args->text.text_file, text_file_help("UTF-8 text file"));
  add_tokenizer_flags(*cmd, args->tokenizer, args->no_special_tokens, args->bos);
  cmd->add_option("--format", args->format, "text, json or csv")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  cmd->callback([args] { tokenize_command(*args); });
}

}  // namespace attnviz
