// The model families are records (src/model/families/): no other source file names one in a string
// literal, and `init --arch` and `--layout` offer exactly the registered ones.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "attnviz/cli/commands.hpp"
#include "attnviz/cli/model_flags.hpp"
#include "attnviz/model/family.hpp"
#include "attnviz/model/init.hpp"
#include "attnviz/model/layout.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using namespace attnviz;

namespace {

// The words of every string literal of C++ source `text`, with their line: runs of letters, digits,
// '_', '.' and '-' ("llama.cpp" is one word, not "llama"), trailing '.' and '-' dropped. Comments,
// character literals and raw strings are read as the compiler reads them; an #include's path
// (src/inputs/tokenizers/gpt2/, the GPT-2 tokenizer's folder) is a file's name, not a literal.
std::vector<std::pair<int, std::string>> literal_words(const std::string& text) {
  std::vector<std::pair<int, std::string>> words;
  int line = 1;
  const auto take = [&](const std::string& literal, int at) {
    std::string word;
    const auto flush = [&] {
      while (!word.empty() && (word.back() == '.' || word.back() == '-')) word.pop_back();
      if (!word.empty()) words.push_back({at, word});
      word.clear();
    };
    for (const char c : literal) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-') {
        word += c;
      } else {
        flush();
      }
    }
    flush();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (c == '#' && text.compare(i, 8, "#include") == 0) {  // a file's path, not a literal
      i = std::min(text.find('\n', i), text.size()) - 1;
    } else if (text.compare(i, 2, "//") == 0) {
      i = std::min(text.find('\n', i), text.size()) - 1;
    } else if (text.compare(i, 2, "/*") == 0) {
      const size_t end = std::min(text.find("*/", i + 2), text.size());
      line += int(std::count(text.begin() + long(i), text.begin() + long(end), '\n'));
      i = end + 1;
    } else if (c == 'R' && text.compare(i + 1, 1, "\"") == 0 &&
               (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])))) {
      const size_t open = text.find('(', i);
      const std::string close = ")" + text.substr(i + 2, open - i - 2) + "\"";
      const size_t end = std::min(text.find(close, open), text.size());
      take(text.substr(open + 1, end - open - 1), line);
      line += int(std::count(text.begin() + long(i), text.begin() + long(end), '\n'));
      i = end + close.size() - 1;
    } else if (c == '"' || c == '\'') {
      std::string literal;
      size_t j = i + 1;
      for (; j < text.size() && text[j] != c && text[j] != '\n'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size()) ++j;
        literal += text[j];
      }
      if (c == '"') take(literal, line);
      i = j;
    }
  }
  return words;
}

// Each registered family's name and model_type.
std::set<std::string> family_words() {
  std::set<std::string> names;
  for (const auto& f : families()) {
    names.insert(f.layout.name);
    if (!f.layout.model_type.empty()) names.insert(f.layout.model_type);
  }
  return names;
}

struct Exception {
  const char* path;
  const char* word;
  const char* why;
};

// The literals that spell a family's name but mean something else.
constexpr Exception k_exceptions[] = {
    {"src/inputs/tokenizers/gguf/gguf_vocab.cpp", "llama",
     "tokenizer.ggml.model \"llama\": llama.cpp's SentencePiece vocabulary kind, not a family"},
    {"src/inputs/tokenizers/gguf/gguf_tokenizer.cpp", "llama",
     "the tokenizer's description names its tokenizer.ggml.model, \"llama\" (SentencePiece)"},
    {"src/inputs/tokenizers/gguf/gguf_vocab.cpp", "qwen2",
     "tokenizer.ggml.pre \"qwen2\": llama.cpp's name of a pre-tokenizer regex"},
    {"src/inputs/tokenizers/gguf/gguf_vocab.cpp", "phi3",
     "general.name containing \"phi3\": llama.cpp's tokenizer attributes by model name"},
    {"src/model/init/init_gguf_tokenizer.cpp", "qwen2",
     "tokenizer.ggml.pre \"qwen2\" written for Qwen2's pre-tokenizer regex"},
    {"src/model/init/init_gguf_tokenizer.cpp", "gpt2",
     "tokenizer.ggml.model \"gpt2\": llama.cpp's byte-level BPE vocabulary kind"},
    {"src/inputs/tokenizers/gguf/gguf_vocab.hpp", "gpt2",
     "tokenizer.ggml.model \"gpt2\": byte-level BPE"},
    {"src/inputs/tokenizers/gguf/gguf_vocab.hpp", "bert",
     "tokenizer.ggml.model \"bert\": WordPiece-style"},
    {"src/inputs/tokenizers/gguf/gguf_vocab.cpp", "gpt2",
     "tokenizer.ggml.model \"gpt2\": byte-level BPE"},
    {"src/inputs/tokenizers/gguf/gguf_vocab.cpp", "bert",
     "tokenizer.ggml.model \"bert\": WordPiece-style"},
    {"src/inputs/tokenizers/gguf/gguf_tokenizer.cpp", "gpt2",
     "the tokenizer's description names its tokenizer.ggml.model, \"gpt2\" (byte-level BPE)"},
    {"src/inputs/tokenizers/gguf/gguf_vocab.cpp", "t5",
     "tokenizer.ggml.model \"t5\": llama.cpp's Unigram vocabulary kind, named in a refusal"},
    {"src/inputs/tokenizers/gguf/gguf_tokenizer.cpp", "bert",
     "the tokenizer's description names its tokenizer.ggml.model, \"bert\" (WordPiece-style)"},
    {"src/inputs/tokenizers/sentencepiece/m2m100_tokenizer.cpp", "m2m100",
     "tokenizer_config.json's language_codes \"m2m100\": M2M100Tokenizer's name of its list of "
     "language codes, not a family"},
};

bool excepted(const std::string& path, const std::string& word, std::set<size_t>& used) {
  for (size_t i = 0; i < std::size(k_exceptions); ++i) {
    if (path == k_exceptions[i].path && word == k_exceptions[i].word) {
      used.insert(i);
      return true;
    }
  }
  return false;
}

// The comma-separated names in `text` after `before` and up to `after`.
std::vector<std::string> listed(const std::string& text, const std::string& before,
                                const std::string& after) {
  const size_t begin = text.find(before);
  REQUIRE_MESSAGE(begin != std::string::npos, text);
  const size_t end = text.find(after, begin + before.size());
  std::vector<std::string> names;
  std::string rest = text.substr(begin + before.size(), end - begin - before.size()) + ", ";
  for (size_t at = 0, next; (next = rest.find(", ", at)) != std::string::npos; at = next + 2)
    names.push_back(rest.substr(at, next - at));
  return names;
}

}  // namespace

TEST_CASE("family records: the literal scanner reads strings, not comments or characters") {
  const std::string source =
      "// \"qwen3\" in a comment\n"
      "/* \"gemma2\"\n */ const char* a = \"llama.cpp's qwen3-ish, phi3.\";\n"
      "char q = '\"'; auto r = R\"x(a \"mistral\" b)x\"; auto s = \"\\\"gemma3_text\\\"\";\n"
      "#include \"attnviz/inputs/tokenizers/gpt2/gpt2_tokenizer.hpp\"\n";
  const auto words = literal_words(source);
  std::vector<std::string> found;
  for (const auto& [line, word] : words) {
    if (family_words().count(word)) found.push_back(fmt::format("{}:{}", line, word));
  }
  CHECK(found == std::vector<std::string>{"3:phi3", "4:mistral", "4:gemma3_text"});
}

TEST_CASE("family records: no file outside src/model/families/ names a family in a literal") {
  const fs::path root = ATTNVIZ_SOURCE_DIR;
  const std::set<std::string> names = family_words();
  CHECK(names.count("gemma3_text"));
  std::set<size_t> used;
  std::string found;
  int files = 0;
  for (const fs::path& base : {root / "src", root / "include"}) {
    for (const auto& entry : fs::recursive_directory_iterator(base)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
      const std::string path = entry.path().lexically_relative(root).generic_string();
      if (path.starts_with("src/model/families/")) continue;
      ++files;
      for (const auto& [line, word] : literal_words(attnviz::test::slurp(entry.path()))) {
        if (names.count(word) && !excepted(path, word, used))
          found += fmt::format("{}:{}: \"{}\"\n", path, line, word);
      }
    }
  }
  CHECK(files > 100);
  CHECK_MESSAGE(found.empty(), "family names outside the records:\n" << found);
  for (size_t i = 0; i < std::size(k_exceptions); ++i) {
    CHECK_MESSAGE(used.count(i),
                  "stale exception: " << k_exceptions[i].path << " " << k_exceptions[i].word);
  }
}

TEST_CASE("family records: names, model_types and GGUF architectures lead back to one record") {
  std::set<std::string> names;
  // A model_type shared by records (T5's plain and gated feed-forward layers) leads to one of them
  // by its tensors: their detection tensors differ.
  std::set<std::pair<std::string, std::string>> types;
  for (const auto& f : families()) {
    CAPTURE(f.layout.name);
    CHECK(names.insert(f.layout.name).second);
    if (!f.layout.model_type.empty())
      CHECK(types.insert({f.layout.model_type, f.layout.detect}).second);
    CHECK(&layout_by_name(f.layout.name) != nullptr);
    CHECK(layout_by_name(f.layout.name).model_type == f.layout.model_type);
    if (!f.gguf.arch.empty()) CHECK(gguf_family(f.gguf.arch)->gguf.arch == f.gguf.arch);
    if (f.init) CHECK(init_family(f.init_arch()) == &f);
  }
  CHECK(init_family("nanogpt") == nullptr);  // init writes it as --arch decoder
  CHECK(init_family("decoder")->layout.name == "nanogpt");
  CHECK(init_family("bert")->layout.name == "bert");
  CHECK(gguf_family("bert") == nullptr);
  CHECK(or_list({"a", "b", "c"}) == "a, b or c");
  CHECK(or_list({"a"}) == "a");
}

TEST_CASE("family records: no record refuses a config key it reads") {
  for (const auto& f : families()) {
    CAPTURE(f.layout.name);
    std::set<std::string> read(f.layout.activation_keys.begin(), f.layout.activation_keys.end());
    read.insert(f.layout.parallel_residual_keys.begin(), f.layout.parallel_residual_keys.end());
    for (const auto& [key, value] : f.layout.config_defaults) read.insert(key);
    for (const auto& r : f.layout.refused_keys) {
      CAPTURE(r.key);
      CHECK_FALSE(read.count(r.key));
      CHECK_FALSE(r.what.empty());
    }
  }
  // Every record starts from the shared refusals: a family that computes one takes it out.
  CHECK(layout_by_name("llama").refused_keys.size() == common_refused_keys().size());
}

TEST_CASE("family records: init --arch accepts and lists exactly the registered families") {
  CLI::App app;
  add_init_command(app);
  CLI::Option* arch = app.get_subcommand("init")->get_option("--arch");
  CHECK(listed(arch->get_description(), "families`): ", "\n") == init_family_names());
  CLI::Validator* check = arch->get_validator(0);
  REQUIRE(check);
  std::vector<std::string> accepted = init_family_names();
  for (auto name : accepted) CHECK_MESSAGE((*check)(name).empty(), name);
  for (const auto& f : families()) {
    std::string name = f.init_arch();
    if (f.init) CHECK((*check)(name).empty());
  }
  for (std::string other : {"bogus", "nanogpt", "torch-mha", ""}) CHECK(!(*check)(other).empty());
  std::vector<std::string> expected;
  for (const auto& f : families()) {
    if (f.init) expected.push_back(f.init_arch());
  }
  CHECK(accepted == expected);
}

TEST_CASE("family records: --layout's help lists the built-in layouts, the families among them") {
  CLI::App app;
  ModelFlags flags;
  add_model_flags(app, flags);
  const auto names = listed(app.get_option("--layout")->get_description(), "layout: ", " (");
  std::vector<std::string> layouts;
  for (const auto& l : builtin_layouts()) layouts.push_back(l.name);
  CHECK(names == layouts);
  // The families in registry order, one after the other, once each.
  std::vector<std::string> family_names;
  for (const auto& f : families()) family_names.push_back(f.layout.name);
  const auto first = std::find(names.begin(), names.end(), family_names.front());
  REQUIRE(first != names.end());
  REQUIRE(size_t(names.end() - first) >= family_names.size());
  CHECK(std::vector<std::string>(first, first + long(family_names.size())) == family_names);
}

TEST_CASE("family records: `attnviz families` shows every record once, in a row of its title") {
  const std::string table = families_table(true);
  std::set<std::string> titles;
  for (const auto& f : families()) {
    CAPTURE(f.layout.name);
    REQUIRE(!f.title.empty());
    titles.insert(f.title);
    // The layout's name is first named in its title's row.
    const size_t row = table.find("| " + f.title + " |");
    REQUIRE(row != std::string::npos);
    const std::string line = table.substr(row, table.find('\n', row) - row);
    CHECK(line.find("`" + f.layout.name + "`") != std::string::npos);
    CHECK(table.find("`" + f.layout.name + "`") == row + line.find("`" + f.layout.name + "`"));
    if (!f.init_arch().empty()) CHECK(line.find("`" + f.init_arch() + "`") != std::string::npos);
    if (!f.gguf.arch.empty()) CHECK(line.find("`" + f.gguf.arch + "`") != std::string::npos);
  }
  // A header, the rule, one row per title.
  CHECK(std::count(table.begin(), table.end(), '\n') == long(titles.size()) + 2);
  const std::string text = families_table(false);
  CHECK(text.find('`') == std::string::npos);
  CHECK(text.find("  layouts: gpt2\n") != std::string::npos);
}
