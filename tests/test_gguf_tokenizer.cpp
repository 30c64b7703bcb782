// GGUF tokenizers against llama.cpp itself: tests/fixtures/gguf_tokenizers/expected.json holds the
// ids llama.cpp (node-llama-cpp's CPU build) gives for every text on vocabulary-only GGUF files
// built from the fetched vocabularies as llama.cpp's converter builds them; the tests rebuild the
// same metadata (gguf_vocab_builders.hpp) and must give the same ids. A missing vocabulary is a
// failure, never a skip. Then each malformed-metadata case, and hand-computed small vocabularies.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>

#include "attnviz/inputs/tokenizer.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "attnviz/inputs/tokenizers/gguf/gguf_tokenizer.hpp"
#include "attnviz/io/text_file.hpp"
#include "error_of.hpp"
#include "gguf_builder.hpp"
#include "gguf_vocab_builders.hpp"
#include "run_cli.hpp"
#include "sha256.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using namespace attnviz::test;
namespace fs = std::filesystem;

namespace {

const fs::path k_fixtures = fs::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures";

GgufMetadata build_vocab(const std::string& name) {
  const fs::path vocab = k_fixtures / "vocab";
  if (name == "gpt2") return bpe_vocab(vocab / "gpt2-json", "gpt-2");
  if (name == "gpt2_default") return bpe_vocab(vocab / "gpt2-json", "");
  if (name == "llama3") return bpe_vocab(vocab / "llama3", "llama-bpe");
  if (name == "qwen2_5") return bpe_vocab(vocab / "qwen2_5", "qwen2");
  if (name == "mistral_hf") return llama_hf_vocab(vocab / "llama2");
  if (name == "spm_bpe_nfkc")
    return sentencepiece_vocab(k_fixtures / "sentencepiece/bpe_nfkc.model");
  if (name == "spm_unigram_bytes")
    return sentencepiece_vocab(k_fixtures / "sentencepiece/unigram_bytes.model");
  if (name == "bert_uncased") return bert_vocab(vocab / "bert-uncased");
  FAIL("no builder for " << name);
  return {};
}

std::vector<int64_t> ids_of(const std::vector<TokenPiece>& pieces) {
  std::vector<int64_t> ids;
  for (const auto& p : pieces) ids.push_back(p.id);
  return ids;
}

// The metadata the builder made agrees with what the generator recorded of its own file.
void check_built(const GgufMetadata& m, const nlohmann::json& built) {
  CHECK(m.get_array<std::string>("tokenizer.ggml.tokens").size() == built["tokens"].get<size_t>());
  const size_t merges = m.find("tokenizer.ggml.merges")
                            ? m.get_array<std::string>("tokenizer.ggml.merges").size()
                            : 0;
  CHECK(merges == built["merges"].get<size_t>());
  const std::pair<const char*, const char*> keys[] = {{"bos", "bos_token_id"},
                                                      {"eos", "eos_token_id"},
                                                      {"unk", "unknown_token_id"},
                                                      {"sep", "seperator_token_id"},
                                                      {"pad", "padding_token_id"}};
  for (const auto& [typ, key] : keys) {
    const bool has = m.find(std::string("tokenizer.ggml.") + key) != nullptr;
    CHECK(has == built["ids"].contains(typ));
    if (has)
      CHECK(m.get<uint32_t>(std::string("tokenizer.ggml.") + key) ==
            built["ids"][typ].get<uint32_t>());
  }
}

void check_vocabulary(const std::string& name, const nlohmann::json& record,
                      const nlohmann::json& texts) {
  INFO("vocabulary ", name);
  const GgufMetadata metadata = build_vocab(name);
  check_built(metadata, record["built"]);
  const auto tokenizer = read_gguf_tokenizer(metadata, name);
  const auto& ref = record["llama_cpp"];
  size_t agree = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    const auto text = texts[i].get<std::string>();
    auto expected = record["ids"][i].get<std::vector<int64_t>>();
    INFO("text ", i, ": ", text.substr(0, 200));
    const auto plain = ids_of(tokenizer->encode(text, false));
    CHECK(plain == expected);
    agree += plain == expected;
    if (ref["add_bos"].get<bool>()) expected.insert(expected.begin(), ref["bos"].get<int64_t>());
    if (ref["add_eos"].get<bool>()) expected.push_back(ref["eos"].get<int64_t>());
    CHECK(ids_of(tokenizer->encode(text, true)) == expected);
  }
  MESSAGE(name << ": " << agree << " of " << texts.size() << " texts give llama.cpp's ids");
  // The 1 MB corpus, by count and sha256 of the ids in decimal, comma-separated.
  const auto& long_text = record["long"];
  const auto text = read_text_file((k_fixtures / long_text["file"].get<std::string>()).string());
  std::string joined;
  size_t count = 0;
  for (const auto& piece : tokenizer->encode(text, false))
    joined += (count++ ? "," : "") + std::to_string(piece.id);
  CHECK(count == long_text["count"].get<size_t>());
  CHECK(sha256_hex(joined) == long_text["sha256"].get<std::string>());
}

}  // namespace

TEST_CASE("GGUF tokenizers give llama.cpp's ids on every text and vocabulary") {
  const auto expected = read_json_file(k_fixtures / "gguf_tokenizers/expected.json");
  const auto& texts = expected["texts"];
  REQUIRE(texts.size() >= 90);
  REQUIRE(expected["vocabularies"].size() == 8);
  for (const auto& [name, record] : expected["vocabularies"].items()) {
    SUBCASE(name.c_str()) {
      check_vocabulary(name, record, texts);
    }
  }
}

namespace {

// A small SentencePiece-style vocabulary, scores chosen by hand.
GgufEntries spm_entries(float score_ab = -5.0f) {
  return {
      {"tokenizer.ggml.model", gguf_string("llama")},
      {"tokenizer.ggml.tokens",
       gguf_strings({"<unk>", "<s>", "</s>", "\xe2\x96\x81", "a", "b", "ab",
                     "\xe2\x96\x81"
                     "a",
                     "<0x63>"})},
      {"tokenizer.ggml.scores",
       gguf_numbers(GgufValueType::F32, std::vector<float>{0, 0, 0, -1, -2, -3, score_ab, -4, 0})},
      {"tokenizer.ggml.token_type",
       gguf_numbers(GgufValueType::I32, std::vector<int32_t>{2, 3, 3, 1, 1, 1, 1, 1, 6})}};
}

// A small byte-level BPE vocabulary ("Ġ" is the space).
GgufEntries bpe_entries() {
  return {{"tokenizer.ggml.model", gguf_string("gpt2")},
          {"tokenizer.ggml.pre", gguf_string("gpt-2")},
          {"tokenizer.ggml.tokens", gguf_strings({"a", "b", "\xc4\xa0", "ab",
                                                  "\xc4\xa0"
                                                  "a",
                                                  "<|end|>", "<|end|>b"})},
          {"tokenizer.ggml.token_type",
           gguf_numbers(GgufValueType::I32, std::vector<int32_t>{1, 1, 1, 1, 1, 3, 4})},
          {"tokenizer.ggml.merges", gguf_strings({"a b", "\xc4\xa0 a"})}};
}

GgufEntries with(GgufEntries e, const std::string& key, std::optional<GgufValue> value) {
  std::erase_if(e, [&](const auto& kv) { return kv.first == key; });
  if (value) e.emplace_back(key, std::move(*value));
  return e;
}

std::vector<int64_t> encode(const GgufEntries& e, std::string_view text, bool add_special = false) {
  return ids_of(
      read_gguf_tokenizer(GgufMetadata("t.gguf", e), "t.gguf")->encode(text, add_special));
}

std::string load_error(const GgufEntries& e) {
  return error_of([&] { read_gguf_tokenizer(GgufMetadata("t.gguf", e), "t.gguf"); });
}

// The bytes of a GGUF file holding `entries` and no tensors.
std::string gguf_file_bytes(const GgufEntries& entries) {
  GgufBuilder builder;
  for (const auto& [key, v] : entries) {
    GgufBytes b;
    b.str(key);
    if (v.is_array)
      b.put<int32_t>(9).put<int32_t>(static_cast<int32_t>(v.type)).put<uint64_t>(v.count);
    else
      b.put<int32_t>(static_cast<int32_t>(v.type));
    if (v.type == GgufValueType::String) {
      for (const auto& s : v.strings) b.str(s);
    } else {
      b.out.append(v.bytes.begin(), v.bytes.end());
    }
    builder.kvs.push_back(b.out);
  }
  return builder.build();
}

}  // namespace

TEST_CASE(
    "GGUF llama tokenizer: merges by score, space prefix, byte fallback, BOS (hand-computed)") {
  // "ab" → "▁ab": the pair "▁a" (score -4) beats "ab" (-5); "▁ab" is no token.
  CHECK(encode(spm_entries(), "ab") == std::vector<int64_t>{7, 5});
  CHECK(encode(spm_entries(), "ab", true) ==
        std::vector<int64_t>{1, 7, 5});  // llama: add_bos by default
  CHECK(encode(spm_entries(-1.5f), "ab") == std::vector<int64_t>{3, 6});  // now "ab" (-1.5) wins
  CHECK(encode(with(spm_entries(), "tokenizer.ggml.add_space_prefix", gguf_bool(false)), "ab") ==
        std::vector<int64_t>{6});
  CHECK(encode(with(spm_entries(), "tokenizer.ggml.add_bos_token", gguf_bool(false)), "ab", true) ==
        std::vector<int64_t>{7, 5});
  CHECK(encode(with(spm_entries(), "tokenizer.ggml.add_eos_token", gguf_bool(true)), "ab", true) ==
        std::vector<int64_t>{1, 7, 5, 2});
  CHECK(encode(spm_entries(), "c") == std::vector<int64_t>{3, 8});  // 'c' only as the byte <0x63>
  // A control token in the text is that token; the text after it gets the space prefix again.
  CHECK(encode(spm_entries(), "a</s>b") == std::vector<int64_t>{7, 2, 3, 5});
  const auto pieces =
      read_gguf_tokenizer(GgufMetadata("t.gguf", spm_entries()), "t.gguf")->encode("a</s>b", true);
  REQUIRE(pieces.size() == 5);
  CHECK((pieces[0].added && pieces[0].label == "<s>"));
  CHECK((pieces[1].begin == 0 && pieces[1].end == 1 && pieces[1].label == "\u2423a"));
  CHECK((pieces[2].begin == 1 && pieces[2].end == 5 && !pieces[2].added));
  CHECK(error_of([&] { encode(spm_entries(), "d"); }) ==
        "t.gguf: tokenizer.ggml.tokens: no token for byte 0x64 (neither <0x64> nor the byte "
        "itself), which the text "
        "needs (llama.cpp fails here too)");
}

TEST_CASE(
    "GGUF gpt2 tokenizer: regex words, merges by rank, longest special first, Phi-3's rstrip") {
  CHECK(encode(bpe_entries(), "ab a") == std::vector<int64_t>{3, 4});
  CHECK(encode(bpe_entries(), "ab a", true) ==
        std::vector<int64_t>{3, 4});  // gpt-2: no BOS by default
  // BOS defaults to id 11 for BPE vocabularies, outside these 7 tokens: llama.cpp disables it.
  CHECK(error_of([&] {
          encode(with(bpe_entries(), "tokenizer.ggml.add_bos_token", gguf_bool(true)), "a", true);
        }) == "t.gguf: tokenizer.ggml.add_bos_token is true but the file names no BOS token");
  auto bos = with(bpe_entries(), "tokenizer.ggml.add_bos_token", gguf_bool(true));
  CHECK(encode(with(bos, "tokenizer.ggml.bos_token_id", gguf_u32(5)), "a", true) ==
        std::vector<int64_t>{5, 0});
  CHECK(encode(bpe_entries(), "<|end|>b") ==
        std::vector<int64_t>{6});  // the longer user-defined token
  CHECK(encode(bpe_entries(), "<|end|>  a") == std::vector<int64_t>{5, 2, 4});
  CHECK(encode(with(bpe_entries(), "general.name", gguf_string("Phi-3 mini")), "<|end|>  a") ==
        std::vector<int64_t>{5, 0});
}

TEST_CASE("GGUF tokenizer: missing tokens") {
  CHECK(load_error(with(spm_entries(), "tokenizer.ggml.tokens", std::nullopt)) ==
        "t.gguf: no metadata key 'tokenizer.ggml.tokens' (expected an array of str)");
  CHECK(load_error(with(spm_entries(), "tokenizer.ggml.tokens", gguf_strings({}))) ==
        "t.gguf: tokenizer.ggml.tokens: the vocabulary is empty");
  CHECK(
      load_error(with(spm_entries(), "tokenizer.ggml.tokens",
                      gguf_numbers(GgufValueType::I32, std::vector<int32_t>{1}))) ==
      "t.gguf: metadata key 'tokenizer.ggml.tokens' is an array of i32, expected an array of str");
}

TEST_CASE("GGUF tokenizer: a repeated token") {
  CHECK(load_error(with(bpe_entries(), "tokenizer.ggml.tokens",
                        gguf_strings({"a", "b", "\xc4\xa0", "ab", "a", "<|end|>", "x"}))) ==
        "t.gguf: tokenizer.ggml.tokens: token 4 'a' repeats token 0");
}

TEST_CASE("GGUF tokenizer: types or scores of another length, or an unknown type") {
  CHECK(load_error(with(spm_entries(), "tokenizer.ggml.token_type",
                        gguf_numbers(GgufValueType::I32, std::vector<int32_t>{1, 1}))) ==
        "t.gguf: tokenizer.ggml.token_type: 2 types for 9 tokens");
  CHECK(load_error(with(spm_entries(), "tokenizer.ggml.scores",
                        gguf_numbers(GgufValueType::F32, std::vector<float>(10, 0.0f)))) ==
        "t.gguf: tokenizer.ggml.scores: 10 scores for 9 tokens");
  CHECK(load_error(with(
            spm_entries(), "tokenizer.ggml.token_type",
            gguf_numbers(GgufValueType::I32, std::vector<int32_t>{2, 3, 3, 1, 1, 1, 7, 1, 6}))) ==
        "t.gguf: tokenizer.ggml.token_type: token 6 has type 7 (expected 0 to 6)");
}

TEST_CASE("GGUF tokenizer: merges missing or malformed") {
  CHECK(load_error(with(bpe_entries(), "tokenizer.ggml.merges", std::nullopt)) ==
        "t.gguf: no metadata key 'tokenizer.ggml.merges' (expected an array of str)");
  CHECK(load_error(with(bpe_entries(), "tokenizer.ggml.merges", gguf_strings({"a b", "ab"}))) ==
        "t.gguf: tokenizer.ggml.merges: merge 1 'ab' is not two tokens separated by a space");
  CHECK(load_error(with(bpe_entries(), "tokenizer.ggml.merges", gguf_strings({" ab"}))) ==
        "t.gguf: tokenizer.ggml.merges: merge 0 ' ab' is not two tokens separated by a space");
}

TEST_CASE(
    "GGUF tokenizer: merges naming a token the vocabulary lacks, refused when the file is read") {
  // The tokens: a, b, Ġ, ab, Ġa, <|end|>, <|end|>b. "Ġa b" forms "Ġab", which is no token
  // (llama.cpp would drop bytes of it); "x y" names two. Refused on load, whatever the text.
  const auto merges = [](std::vector<std::string> list) {
    return load_error(with(bpe_entries(), "tokenizer.ggml.merges", gguf_strings(list)));
  };
  CHECK(merges({"\xc4\xa0 a",
                "\xc4\xa0"
                "a b"}) ==
        "t.gguf: tokenizer.ggml.merges: merge 1 '\xc4\xa0"
        "a b' needs the token '\xc4\xa0"
        "ab', which is not in "
        "tokenizer.ggml.tokens");
  CHECK(merges({"a b", "x a"}) ==
        "t.gguf: tokenizer.ggml.merges: merge 1 'x a' needs the token 'x', which is not in "
        "tokenizer.ggml.tokens");
  CHECK(merges({"a y"}) ==
        "t.gguf: tokenizer.ggml.merges: merge 0 'a y' needs the token 'y', which is not in "
        "tokenizer.ggml.tokens");
}

TEST_CASE("GGUF tokenizer: a special-token id outside the vocabulary") {
  CHECK(load_error(with(spm_entries(), "tokenizer.ggml.eos_token_id", gguf_u32(9))) ==
        "t.gguf: tokenizer.ggml.eos_token_id: id 9 is outside the vocabulary (9 tokens)");
  CHECK(load_error(with(spm_entries(), "tokenizer.ggml.bos_token_id", gguf_u32(4000000000u))) ==
        "t.gguf: tokenizer.ggml.bos_token_id: id 4000000000 is outside the vocabulary (9 tokens)");
  // The ids llama.cpp reads besides, though attnviz does not use them.
  for (const char* key : {"tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id",
                          "tokenizer.ggml.fim_pre_token_id", "tokenizer.ggml.mask_token_id"}) {
    CHECK(load_error(with(spm_entries(), key, gguf_u32(9))) ==
          fmt::format("t.gguf: {}: id 9 is outside the vocabulary (9 tokens)", key));
  }
  CHECK(
      load_error(with(spm_entries(), "tokenizer.ggml.bos_token_id", gguf_string("1"))) ==
      "t.gguf: metadata key 'tokenizer.ggml.bos_token_id' is str, expected a non-negative integer");
}

TEST_CASE("GGUF tokenizer: a model type attnviz does not implement") {
  for (const char* model : {"t5", "rwkv", "gemma4", "BERT"}) {
    CHECK(load_error(with(spm_entries(), "tokenizer.ggml.model", gguf_string(model))) ==
          fmt::format("t.gguf: tokenizer.ggml.model: '{}' is not a tokenizer attnviz reads (it "
                      "reads gpt2: byte-level "
                      "BPE, llama: SentencePiece-style, and bert: WordPiece-style; t5, rwkv and "
                      "others are not "
                      "implemented)",
                      model));
  }
  CHECK(load_error(with(spm_entries(), "tokenizer.ggml.model", std::nullopt)) ==
        "t.gguf: no metadata key 'tokenizer.ggml.model' (expected str)");
}

TEST_CASE("GGUF tokenizer: an unknown pre-tokenizer names the supported ones") {
  const std::string supported =
      "default (also when absent), gpt-2, phi-2, mpt, olmo, jina-es, jina-de, jina-v2-es, "
      "jina-v2-de, gigachat, "
      "a.x-4.0, mellum, modern-bert (GPT-2's regex); llama-bpe, llama3, llama-v3, falcon3, "
      "falcon-h1, pixtral, "
      "midm-2.0, lfm2, jina-v5-nano, dbrx, smaug-bpe (Llama 3's); qwen2, deepseek-r1-qwen, kormo, "
      "f2llmv2, "
      "stablelm2 (Qwen2's)";
  CHECK(load_error(with(bpe_entries(), "tokenizer.ggml.pre", gguf_string("deepseek-coder"))) ==
        "t.gguf: tokenizer.ggml.pre: 'deepseek-coder' is not a pre-tokenizer attnviz implements; "
        "supported: " +
            supported);
  // Absent, it is llama.cpp's "default": punctuation runs split off first ("a" "," "b" here;
  // GPT-2's regex alone would too), then GPT-2's regex, digit runs, and three ASCII digits at a
  // time.
  const auto no_pre = with(bpe_entries(), "tokenizer.ggml.pre", std::nullopt);
  CHECK(read_gguf_tokenizer(GgufMetadata("t.gguf", no_pre), "t.gguf")->description() ==
        "GGUF tokenizer (gpt2: byte-level BPE, pre-tokenizer default, 7 tokens, 2 merges)");
  CHECK(encode(no_pre, "ab a") == std::vector<int64_t>{3, 4});
}

TEST_CASE(
    "find_tokenizer reads a .gguf file's tokenizer, a broken file is the GGUF reader's error") {
  TempDir dir;
  std::ofstream(dir / "m.gguf", std::ios::binary) << gguf_file_bytes(spm_entries());
  REQUIRE(is_tokenizer_file_name(dir / "m.gguf"));
  const auto tokenizer = find_tokenizer(dir / "m.gguf");
  REQUIRE(tokenizer);
  CHECK(ids_of(tokenizer->encode("ab", true)) == std::vector<int64_t>{1, 7, 5});
  CHECK(tokenizer->description() ==
        "GGUF tokenizer (llama: SentencePiece-style BPE by score, 9 tokens)");
  CHECK(tokenizer->unknown_id() == 0);
  std::ofstream(dir / "bad.gguf", std::ios::binary) << "GGUF";
  CHECK(error_of([&] {
          find_tokenizer(dir / "bad.gguf");
        }).rfind((dir / "bad.gguf").string() + ": ", 0) == 0);
}

TEST_CASE("a GGUF vocabulary that contradicts itself: inspect and tokenize refuse it, exit 1") {
  TempDir dir;
  const auto bad = with(spm_entries(), "tokenizer.ggml.scores",
                        gguf_numbers(GgufValueType::F32, std::vector<float>(10, 0.0f)));
  std::ofstream(dir / "m.gguf", std::ios::binary) << gguf_file_bytes(bad);
  const std::string file = (dir / "m.gguf").string();
  const std::string message = file + ": tokenizer.ggml.scores: 10 scores for 9 tokens";
  const auto inspect = run_attnviz("inspect '" + file + "'");
  CHECK(inspect.exit_code == 1);
  CHECK_MESSAGE(contains(inspect.out, "tokenizer: unreadable: " + message),
                inspect.out);  // printed with the rest
  // The file is no model either (no general.architecture): that error, printed too, is the one
  // raised.
  CHECK_MESSAGE(contains(inspect.out, "model: not runnable as it is: "), inspect.out);
  const auto tokenize = run_attnviz("tokenize -m '" + file + "' --text ab");
  CHECK(tokenize.exit_code == 1);
  CHECK(contains(tokenize.err, message));
}

TEST_CASE("attnviz tokenize reads the tokenizer of a .gguf file (-m or --tokenizer)") {
  TempDir dir;
  std::ofstream(dir / "m.gguf", std::ios::binary) << gguf_file_bytes(spm_entries());
  for (const std::string flag : {"-m", "--tokenizer"}) {
    const auto r = run_attnviz("tokenize " + flag + " '" + (dir / "m.gguf").string() +
                               "' --text 'a</s>c' --format csv");
    INFO(flag, ": ", r.err);
    CHECK(r.exit_code == 0);
    CHECK(contains(r.out, ",1,"));  // <s>, added
    CHECK(contains(r.out, ",7,"));  // ▁a
    CHECK(contains(r.out, ",8,"));  // <0x63>: 'c' by byte fallback
  }
}

namespace {

// A small WordPiece-style (bert) vocabulary in llama.cpp's phantom-space form.
GgufEntries wpm_entries() {
  const std::string m = "\xe2\x96\x81";  // "▁": a word's first piece
  return {
      {"tokenizer.ggml.model", gguf_string("bert")},
      {"tokenizer.ggml.tokens",
       gguf_strings({"[PAD]", "[UNK]", "[CLS]", "[SEP]", m + "hello", m + "un", "aff", "able",
                     m + ",", m + "cafe", m + "a", "b"})},
      {"tokenizer.ggml.token_type",
       gguf_numbers(GgufValueType::I32, std::vector<int32_t>{3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1})},
      {"tokenizer.ggml.bos_token_id", gguf_u32(2)},
      {"tokenizer.ggml.seperator_token_id", gguf_u32(3)},
      {"tokenizer.ggml.unknown_token_id", gguf_u32(1)}};
}

}  // namespace

TEST_CASE(
    "GGUF bert tokenizer: lowercase, accents stripped, punctuation split, longest match from the "
    "left") {
  // "unaffable": "▁un" (the longest token at the start), then "aff" (not "a"), then "able".
  CHECK(encode(wpm_entries(), "Hello, UNAFFABLE Caf\xc3\xa9") ==
        std::vector<int64_t>{4, 8, 5, 6, 7, 9});
  // "▁a" "b" match, then "x" matches nothing: the whole word is [UNK], not "▁a" "b" [UNK].
  CHECK(encode(wpm_entries(), "abx hello") == std::vector<int64_t>{1, 4});
  // [CLS] before and [SEP] after, though the file sets no add_*_token; [SEP] in the text is found.
  CHECK(encode(wpm_entries(), "hello", true) == std::vector<int64_t>{2, 4, 3});
  CHECK(encode(wpm_entries(), "[SEP]hello\t\n") == std::vector<int64_t>{3, 4});
  // Without lowercasing (and so without accent stripping) "Hello" and "Café" are no tokens.
  CHECK(encode(with(wpm_entries(), "tokenizer.ggml.normalizer.lowercase", gguf_bool(false)),
               "Hello cafe Caf\xc3\xa9") == std::vector<int64_t>{1, 9, 1});
}

TEST_CASE("GGUF bert tokenizer: byte offsets of the pieces in the input") {
  const auto pieces = read_gguf_tokenizer(GgufMetadata("t.gguf", wpm_entries()), "t.gguf")
                          ->encode("Hello, Caf\xc3\xa9 unaffable", false);
  REQUIRE(pieces.size() == 6);
  const std::pair<size_t, size_t> expected[] = {{0, 5},   {5, 6},   {7, 12},
                                                {13, 15}, {15, 18}, {18, 22}};
  for (size_t i = 0; i < 6; ++i) {
    CHECK(pieces[i].begin == expected[i].first);
    CHECK(pieces[i].end == expected[i].second);
  }
}

TEST_CASE("GGUF bert tokenizer: a word with no match and no unknown token, or no [CLS] to add") {
  // llama.cpp's default unknown id (100) is outside this vocabulary, so there is none.
  const auto no_unk = with(wpm_entries(), "tokenizer.ggml.unknown_token_id", std::nullopt);
  CHECK(encode(no_unk, "hello") == std::vector<int64_t>{4});
  CHECK(error_of([&] { encode(no_unk, "hello xyz"); }) ==
        "t.gguf: the vocabulary has no unknown token (tokenizer.ggml.unknown_token_id), which the "
        "word 'xyz' needs");
  CHECK(error_of([&] {
          encode(with(wpm_entries(), "tokenizer.ggml.bos_token_id", std::nullopt), "hello", true);
        }) ==
        "t.gguf: tokenizer.ggml.bos_token_id: the file names no BOS token (or one outside the "
        "vocabulary), and a bert "
        "vocabulary adds it");
}
