// SentencePiece .model files: ids, labels and byte offsets against what libsentencepiece's Python
// binding recorded (tests/fixtures/make_sentencepiece_fixtures.py, three models trained by Debian's
// spm_train), special tokens from tokenizer_config.json, and every refusal with its message.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "attnviz/core/unicode.hpp"
#include "attnviz/inputs/tokenizers/sentencepiece/sentencepiece_tokenizer.hpp"
#include "error_of.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::error_of;
using attnviz::test::TempDir;

namespace {

const std::filesystem::path k_dir =
    std::filesystem::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/sentencepiece";

nlohmann::json expected() {
  std::ifstream in(k_dir / "expected.json");
  return nlohmann::json::parse(in);
}

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The label attnviz promises for a piece as SentencePiece writes it: the unknown id as the
// model's "<unk>", byte and control pieces as written, every other "▁" as "␣".
std::string expected_label(const std::string& piece, int64_t id, int64_t unk_id) {
  if (id == unk_id) return "<unk>";
  if (piece == "<s>" || piece == "</s>" || (piece.size() == 6 && piece.starts_with("<0x")))
    return piece;
  std::string shown = piece;
  for (size_t at = shown.find("\u2581"); at != std::string::npos; at = shown.find("\u2581", at)) {
    shown.replace(at, 3, "\u2423");
  }
  return printable_text(shown);
}

// A folder holding a copy of unigram.model as `name` and the given tokenizer_config.json (none
// when empty). (The fixtures' own folder has a tokenizer_config.json naming LlamaTokenizer, whose
// plain text is libsentencepiece's own ids.)
struct ModelBeside {
  TempDir dir;
  std::filesystem::path model;
  explicit ModelBeside(const std::string& config, const std::string& name = "tokenizer.model")
      : model(dir / name) {
    std::filesystem::copy_file(k_dir / "unigram.model", model);
    if (!config.empty()) write(dir / "tokenizer_config.json", config);
  }
};

std::vector<int64_t> ids(const Tokenizer& t, std::string_view text, bool add_special) {
  std::vector<int64_t> out;
  for (const auto& p : t.encode(text, add_special)) out.push_back(p.id);
  return out;
}

}  // namespace

TEST_CASE(
    "sentencepiece: ids, labels and byte offsets of three trained models match "
    "libsentencepiece's") {
  const nlohmann::json all = expected();
  REQUIRE(all["models"].size() == 3);
  for (const auto& [name, model] : all["models"].items()) {
    CAPTURE(name);
    const auto tokenizer = make_sentencepiece_tokenizer(k_dir / name);
    CHECK(tokenizer->vocab_size() == model["pieces"].get<int64_t>());
    const auto unk_id = model["unk_id"].get<int64_t>();
    REQUIRE(model["cases"].size() == 16);
    for (const auto& c : model["cases"]) {
      const auto text = c["text"].get<std::string>();
      CAPTURE(text);
      if (text.find("<s>") != std::string::npos) {
        // transformers would read "<s>" as the BOS token, libsentencepiece as text: refused.
        CHECK(error_of([&] { tokenizer->encode(text, false); }) ==
              (k_dir / name).string() +
                  ": the text holds '<s>' at byte 0, which transformers' tokenizer reads as "
                  "a special token and SentencePiece as plain text; attnviz does not split special "
                  "tokens out of text "
                  "for .model files: give the folder's tokenizer.json (--tokenizer), or --ids");
        continue;
      }
      const auto pieces = tokenizer->encode(text, false);
      REQUIRE(pieces.size() == c["ids"].size());
      for (size_t i = 0; i < pieces.size(); ++i) {
        CAPTURE(i);
        CHECK(pieces[i].id == c["ids"][i].get<int64_t>());
        CHECK(pieces[i].begin == c["begin"][i].get<size_t>());
        CHECK(pieces[i].end == c["end"][i].get<size_t>());
        const std::string label =
            expected_label(c["pieces"][i].get<std::string>(), pieces[i].id, unk_id);
        CHECK(pieces[i].label == label);
        CHECK(tokenizer->label(pieces[i].id) == label);
      }
    }
  }
}

TEST_CASE("sentencepiece: descriptions and labels of ids") {
  const auto unigram = make_sentencepiece_tokenizer(k_dir / "unigram.model");
  CHECK(unigram->description() == "SentencePiece unigram (unigram.model, 2000 pieces)");
  CHECK(make_sentencepiece_tokenizer(k_dir / "bpe_nfkc.model")->description() ==
        "SentencePiece BPE (bpe_nfkc.model, 1500 pieces)");
  CHECK(unigram->label(0) == "<unk>");
  CHECK(unigram->label(1) == "<s>");
  CHECK(unigram->label(2) == "</s>");
  CHECK(unigram->label(2000) == "#2000");
  CHECK(unigram->label(-1) == "#-1");
  // spm_train puts the 256 byte pieces right after <unk> <s> </s>: <0xE7> is 3 + 0xE7.
  CHECK(make_sentencepiece_tokenizer(k_dir / "unigram_bytes.model")->label(3 + 0xE7) == "<0xE7>");
}

TEST_CASE("sentencepiece: a tokenizer.model without a tokenizer_config.json is Llama's: BOS only") {
  const ModelBeside m("");
  const auto tokenizer = make_sentencepiece_tokenizer(m.model);
  // "Hello world" → ▁H e ll o ▁world (expected.json), after <s> (id 1, spm_train's default).
  const auto pieces = tokenizer->encode("Hello world", true);
  REQUIRE(pieces.size() == 6);
  CHECK(pieces[0].id == 1);
  CHECK(pieces[0].label == "<s>");
  CHECK(pieces[0].begin == 0);
  CHECK(pieces[0].end == 0);
  const auto with_bos = ids(*tokenizer, "Hello world", true);
  CHECK(ids(*tokenizer, "Hello world", false) ==
        std::vector<int64_t>(with_bos.begin() + 1, with_bos.end()));
  CHECK(ids(*tokenizer, "", true) == std::vector<int64_t>{1});
  // Other names belong to classes that read them otherwise (T5, ALBERT, XLNet's spiece.model;
  // XLM-R's sentencepiece.bpe.model): without a config there is no class to go by.
  const ModelBeside t5("", "spiece.model");
  CHECK(error_of([&] { make_sentencepiece_tokenizer(t5.model); }) ==
        t5.model.string() +
            ": no tokenizer_config.json beside it says which tokenizer class reads it, and classes "
            "differ (T5 adds </s>, ALBERT lowercases, XLM-R shifts every id): attnviz reads a "
            ".model without one only as "
            "tokenizer.model, Llama's");
}

TEST_CASE("sentencepiece: tokenizer_config.json chooses BOS and EOS") {
  SUBCASE("add_bos_token false, add_eos_token true: </s> at the end of the text") {
    const ModelBeside m(
        R"({"tokenizer_class": "LlamaTokenizer", "add_bos_token": false, "add_eos_token": true})");
    const auto pieces = make_sentencepiece_tokenizer(m.model)->encode("x", true);
    REQUIRE(pieces.size() == 3);  // ▁ x </s> (expected.json: "x" is ▁ + x)
    CHECK(pieces[2].id == 2);
    CHECK(pieces[2].label == "</s>");
    CHECK(pieces[2].begin == 1);
    CHECK(pieces[2].end == 1);
  }
  SUBCASE("both, with the tokens written as AddedToken objects (Llama 2's file)") {
    const ModelBeside m(
        R"({"add_bos_token": true, "add_eos_token": true, "bos_token": {"content": "<s>",
      "lstrip": false}, "eos_token": {"content": "</s>"}, "tokenizer_class": "LlamaTokenizerFast", "legacy": false})");
    const auto got = ids(*make_sentencepiece_tokenizer(m.model), "x", true);
    CHECK(got.front() == 1);
    CHECK(got.back() == 2);
    CHECK(got.size() == 4);
  }
  SUBCASE("a bos_token of the config takes the place of the model's") {
    const ModelBeside m(R"({"bos_token": "</s>"})");
    CHECK(ids(*make_sentencepiece_tokenizer(m.model), "x", true).front() == 2);
  }
  SUBCASE("T5Tokenizer: EOS only") {
    const ModelBeside m(R"({"tokenizer_class": "T5Tokenizer"})");
    const auto got = ids(*make_sentencepiece_tokenizer(m.model), "x", true);
    CHECK(got.size() == 3);
    CHECK(got.back() == 2);
    CHECK(got.front() != 1);
  }
  SUBCASE("GemmaTokenizer: BOS by default") {
    const ModelBeside m(R"({"tokenizer_class": "GemmaTokenizer"})");
    CHECK(ids(*make_sentencepiece_tokenizer(m.model), "x", true).front() == 1);
  }
  SUBCASE("T5Tokenizer: its sentinels in a text are refused") {
    const ModelBeside m(R"({"tokenizer_class": "T5Tokenizer", "extra_ids": 3})");
    const auto tokenizer = make_sentencepiece_tokenizer(m.model);
    CHECK(error_of([&] {
            tokenizer->encode("a <extra_id_2>", false);
          }).find("holds '<extra_id_2>' at byte 2") != std::string::npos);
    CHECK(ids(*tokenizer, "a <extra_id_3>", false).size() > 3);  // only 3 sentinels: text
  }
  SUBCASE(
      "special tokens of special_tokens_map.json and added_tokens.json are refused in text too") {
    const ModelBeside m(
        R"({"tokenizer_class": "LlamaTokenizer", "additional_special_tokens": ["<tool>"]})");
    write(m.dir / "added_tokens.json", R"({"<think>": 2000})");
    write(m.dir / "special_tokens_map.json", R"({"mask_token": {"content": "<mask>"}})");
    const auto tokenizer = make_sentencepiece_tokenizer(m.model);
    for (const char* token : {"<tool>", "<think>", "<mask>"}) {
      CAPTURE(token);
      CHECK(error_of([&] {
              tokenizer->encode(std::string("x ") + token, false);
            }).find(std::string("holds '") + token + "' at byte 2") != std::string::npos);
    }
  }
  SUBCASE("another class is refused: its plain text may differ too (XLNet strips accents)") {
    const ModelBeside m(R"({"tokenizer_class": "XLNetTokenizer"})");
    CHECK(error_of([&] { make_sentencepiece_tokenizer(m.model); }) ==
          (m.dir / "tokenizer_config.json").string() +
              ": tokenizer_class: 'XLNetTokenizer' reads a SentencePiece model by its own rules "
              "(special tokens, id "
              "offsets, normalization); attnviz knows LlamaTokenizer, CodeLlamaTokenizer, "
              "GemmaTokenizer and "
              "T5Tokenizer (give its tokenizer.json)");
  }
}

TEST_CASE(
    "sentencepiece: a malformed tokenizer_config.json is an error naming the file and the field") {
  const auto error = [](const std::string& config) {
    const ModelBeside m(config);
    const std::string file = (m.dir / "tokenizer_config.json").string();
    std::string message = error_of([&] { make_sentencepiece_tokenizer(m.model); });
    if (message.starts_with(file)) message = "FILE" + message.substr(file.size());
    return message;
  };
  CHECK(error(R"({"add_bos_token": "yes"})") ==
        "FILE: add_bos_token: expected true or false, got \"yes\"");
  CHECK(error(R"({"add_eos_token": 1})") == "FILE: add_eos_token: expected true or false, got 1");
  CHECK(error(R"({"tokenizer_class": 3})") == "FILE: tokenizer_class: expected a string, got 3");
  CHECK(error(R"({"bos_token": "<bos>"})") ==
        "FILE: bos_token: '<bos>' is not a piece of the SentencePiece model");
  CHECK(error(R"({"eos_token": {"lstrip": true}})") == "FILE: eos_token.content: missing");
  CHECK(error(R"({"eos_token": 7})") ==
        "FILE: eos_token: expected a string or an object with \"content\", got number");
  CHECK(error(R"({"add_prefix_space": false})") ==
        "FILE: add_prefix_space: false changes the tokens and attnviz implements only true");
  CHECK(error(R"({"sp_model_kwargs": {"enable_sampling": true}})") ==
        "FILE: sp_model_kwargs: {\"enable_sampling\":true} changes the tokens and attnviz "
        "implements only {}");
  CHECK(error(R"({"add_prefix_space": true, "sp_model_kwargs": {}})") == "(no error)");
  CHECK(error(R"([])") == "FILE: expected a JSON object, got array");
  CHECK(error(R"({"add_bos_token": tru})").starts_with("FILE"));
}

TEST_CASE("sentencepiece: an unreadable .model is an error naming the file") {
  TempDir dir;
  const auto error = [&](const std::string& name) {
    return error_of([&] { make_sentencepiece_tokenizer(dir / name); });
  };
  CHECK(error("missing.model").starts_with((dir / "missing.model").string()));
  write(dir / "text.model", "hello, not a model");
  CHECK(error("text.model") ==
        (dir / "text.model").string() +
            ": cannot load the SentencePiece model: not a serialized ModelProto");
  write(dir / "empty.model", "");
  CHECK(error("empty.model") == (dir / "empty.model").string() +
                                    ": cannot load the SentencePiece model: unk is not defined.");
  std::filesystem::create_directory(dir / "folder.model");
  CHECK(error("folder.model").starts_with((dir / "folder.model").string()));
}
