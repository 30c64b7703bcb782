// Text in through the command line: --text / --text-file through the model folder's tokenizer,
// `attnviz tokenize`, --ids labelled by their pieces, and the refusals. The tokenizer is a tiny
// byte-level BPE written by hand, so every expected id and offset is worked out below.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "run_cli.hpp"
#include "temp_dir.hpp"

using attnviz::test::contains;
using attnviz::test::run_attnviz;
using attnviz::test::TempDir;

namespace {

// vocab.json / merges.txt of a byte-level BPE ("Ġ" is the byte-level form of a space).
// "ab abc" pre-tokenizes as "ab", " abc" (GPT-2's regex: ` ?\p{L}+`).
//   "ab":   a b → merge (a, b), rank 0 → ab                       → [4]
//   " abc": Ġ a b c → lowest rank among (Ġ,a)=1, (a,b)=0 → Ġ ab c
//           → (ab, c)=2 → Ġ abc → (Ġ, abc) is no merge            → [3, 6]
// so "ab abc" is [4, 3, 6] with byte offsets 0-2, 2-3, 3-6 and labels ab, ␣, abc.
void write_tokenizer(const std::filesystem::path& dir) {
  std::ofstream(dir / "vocab.json")
      << R"({"a": 0, "b": 1, "c": 2, "\u0120": 3, "ab": 4, "\u0120a": 5, "abc": 6, "\u0120ab": 7})";
  std::ofstream(dir / "merges.txt") << "#version: 0.2\na b\n\u0120 a\nab c\n\u0120a b\n";
}

// A GPT-2-shaped model whose token table has 8 rows (one per distinct token of the --vocab file).
std::string make_model(const TempDir& dir, bool with_tokenizer, const std::string& name = "m") {
  std::ofstream(dir / "tokens.txt") << "t0 t1 t2 t3 t4 t5 t6 t7\n";
  const std::string model = (dir / name).string();
  REQUIRE(run_attnviz("init -o '" + model +
                      "' --arch gpt2 --d-model 8 --heads 2 --layers 1 --seed 3 --vocab '" +
                      (dir / "tokens.txt").string() + "'")
              .exit_code == 0);
  if (with_tokenizer) write_tokenizer(dir / name);
  return model;
}

}  // namespace

TEST_CASE("text: tokenize prints the ids, pieces and byte offsets worked out by hand") {
  TempDir dir;
  const std::string model = make_model(dir, true);
  const auto csv = run_attnviz("tokenize -m '" + model + "' --text 'ab abc' --format csv");
  REQUIRE_MESSAGE(csv.exit_code == 0, csv.err);
  CHECK(csv.out == "index,id,piece,begin,end\n0,4,ab,0,2\n1,3,\u2423,2,3\n2,6,abc,3,6\n");
  const auto text = run_attnviz("tokenize --tokenizer '" + model + "' --text 'ab abc'");
  REQUIRE_MESSAGE(text.exit_code == 0, text.err);
  CHECK(contains(text.out,
                 "GPT-2 byte-level BPE (vocab.json + merges.txt, 8 tokens, 4 merges) · 3 tokens"));
  CHECK(contains(text.out, "    2   6  abc    3-6\n"));
  const auto json = run_attnviz("tokenize -m '" + model + "' --text 'ab abc' --format json");
  REQUIRE_MESSAGE(json.exit_code == 0, json.err);
  CHECK(contains(json.out, R"("id": 3,)"));
  CHECK(contains(json.out, "\"piece\": \"\u2423\""));
}

TEST_CASE(
    "text: --text runs the model on the tokenizer's ids, labelled with its pieces, as --ids does") {
  TempDir dir;
  const std::string model = make_model(dir, true);
  const std::string table = " --table probs --format csv --head 0";
  const auto by_text = run_attnviz("run -m '" + model + "' --text 'ab abc'" + table);
  REQUIRE_MESSAGE(by_text.exit_code == 0, by_text.err);
  CHECK(contains(by_text.out, ",ab,\u2423,abc\n"));  // the header row: the keys' labels
  const auto by_ids = run_attnviz("run -m '" + model + "' --ids '4 3 6'" + table);
  REQUIRE_MESSAGE(by_ids.exit_code == 0, by_ids.err);
  CHECK(by_ids.out ==
        by_text.out);  // the same ids: the same maps, and --ids labelled by their pieces
  // A text file: a UTF-8 BOM is not part of the text.
  std::ofstream(dir / "t.txt") << "\xEF\xBB\xBF"
                               << "ab abc";
  const auto by_file =
      run_attnviz("run -m '" + model + "' --text-file '" + (dir / "t.txt").string() + "'" + table);
  REQUIRE_MESSAGE(by_file.exit_code == 0, by_file.err);
  CHECK(by_file.out == by_text.out);
  // The tokenizer can live elsewhere: --tokenizer DIR.
  const std::string bare =
      make_model(dir, false, "bare");  // the same weights, no tokenizer beside them
  std::filesystem::create_directory(dir / "tok");
  write_tokenizer(dir / "tok");
  const auto by_dir = run_attnviz("run -m '" + bare + "' --tokenizer '" + (dir / "tok").string() +
                                  "' --text 'ab abc'" + table);
  REQUIRE_MESSAGE(by_dir.exit_code == 0, by_dir.err);
  CHECK(by_dir.out == by_text.out);
}

TEST_CASE(
    "text: no tokenizer, two inputs at once, or no token: each refused with its own message") {
  TempDir dir;
  const std::string model = make_model(dir, false);
  // vocab.txt alone is BERT's tokenizer; this one has no [UNK] for a word it cannot piece.
  const auto bert = run_attnviz("run -m '" + model + "' --text 'ab abc' --no-special-tokens");
  CHECK(bert.exit_code == 1);
  CHECK_MESSAGE(
      contains(bert.err,
               model + "/vocab.txt: WordPiece: the word 'ab' has no pieces in the vocabulary and "
                       "its unk_token '[UNK]' is not in the vocabulary either"),
      bert.err);
  std::filesystem::rename(dir / "m" / "vocab.txt", dir / "vocab.txt.away");
  const auto none = run_attnviz("run -m '" + model + "' --text 'ab abc'");
  CHECK(none.exit_code == 2);
  CHECK_MESSAGE(
      contains(
          none.err,
          "--text needs the model's tokenizer, but " + model +
              " holds none (looked for tokenizer.json, vocab.json + merges.txt, "
              "tokenizer.model / spiece.model / sentencepiece.bpe.model, vocab.txt, source.spm + "
              "target.spm + vocab.json, source_tokenizer.json + target_tokenizer.json, "
              "sentencepiece.bpe.model + vocab.json (M2M100Tokenizer)); "
              "give --tokenizer PATH, or --ids"),
      none.err);
  CHECK(none.out.empty());
  std::filesystem::rename(dir / "vocab.txt.away", dir / "m" / "vocab.txt");
  // --ids run without a tokenizer; one that cannot be read only costs their labels, with a note.
  std::ofstream(dir / "m" / "vocab.json") << R"({"a": 0})";
  const auto partial =
      run_attnviz("run -m '" + model + "' --ids '4 3 6' --table probs --format csv --head 0");
  CHECK_MESSAGE(partial.exit_code == 0, partial.err);
  CHECK(contains(partial.out, ",t4,t3,t6\n"));  // vocab.txt's tokens
  CHECK(contains(partial.err, "attnviz: note: the ids are labelled without the tokenizer: "));
  CHECK(contains(partial.err, "merges.txt"));
  const auto ignored = run_attnviz("run -m '" + model + "' --tokenizer '" + dir.path().string() +
                                   "' -t '" + (dir / "tokens.txt").string() + "'");
  CHECK(ignored.exit_code == 2);
  CHECK(contains(ignored.err, "--tokenizer reads --text and labels --ids: give one of them"));
  write_tokenizer(dir / "m");
  const auto both = run_attnviz("run -m '" + model + "' --text 'ab' --ids '4'");
  CHECK(both.exit_code == 2);
  CHECK(contains(both.err,
                 "--text, --ids and --tokens / --embeddings give the same input: choose one"));
  const auto two = run_attnviz("run -m '" + model + "' --text 'ab' --text-file '" +
                               (dir / "tokens.txt").string() + "'");
  CHECK(two.exit_code == 2);
  CHECK(contains(two.err, "--text and --text-file: give one"));
  std::ofstream(dir / "bad.txt") << "ab\xff";
  const auto bad =
      run_attnviz("run -m '" + model + "' --text-file '" + (dir / "bad.txt").string() + "'");
  CHECK(bad.exit_code == 1);
  CHECK_MESSAGE(contains(bad.err, (dir / "bad.txt").string() + ": invalid UTF-8 at byte 2"),
                bad.err);
  const auto empty = run_attnviz("tokenize -m '" + model + "'");
  CHECK(empty.exit_code == 2);
  CHECK(contains(empty.err, "tokenize: give --text or --text-file"));
  const auto missing = run_attnviz("tokenize -m '" + (dir / "nowhere").string() + "' --text ab");
  CHECK(missing.exit_code == 1);
  CHECK(contains(missing.err, "nowhere: no such file or directory"));
  std::ofstream(dir / "big.txt") << std::string((8u << 20) + 1, 'a');
  const auto big =
      run_attnviz("tokenize -m '" + model + "' --text-file '" + (dir / "big.txt").string() + "'");
  CHECK(big.exit_code == 1);  // the file's content, not the command line, is too long
  CHECK(contains(big.err, (dir / "big.txt").string() +
                              ": 8388609 bytes of text; attnviz tokenizes at most 8 MiB"));
  const auto piped =
      run_attnviz("tokenize -m '" + model + "' --text-file -", std::string((8u << 20) + 1, 'a'));
  CHECK(piped.exit_code == 1);
  CHECK(contains(piped.err, "-: 8388609 bytes of text; attnviz tokenizes at most 8 MiB"));
  const auto not_dir = run_attnviz("run -m '" + model + "' --tokenizer '" +
                                   (dir / "tokens.txt").string() + "' --text ab");
  CHECK(not_dir.exit_code == 2);
  CHECK(contains(
      not_dir.err,
      "tokens.txt: not a tokenizer file (give the folder holding the tokenizer, or its file: "));
}

TEST_CASE(
    "text: real tokenizers through the CLI: tokenize gives the reference ids, run labels its axes "
    "with the pieces") {
  // One folder of each kind: vocab.json + merges.txt only, vocab.txt only, tokenizer.json only.
  // The expected ids are the JavaScript references' (tests/fixtures/tokenizers/<name>.json). (Llama
  // 3's 9 MB tokenizer.json, checked in process by test_tokenizer_references, is run through the
  // CLI in the --bos case below: twice more here cost seconds under the sanitizers for the path
  // gpt2-json's tokenizer.json takes.)
  const std::string text = "The cat sat on the mat.";
  for (const char* name : {"gpt2", "bert-uncased", "gpt2-json"}) {
    CAPTURE(name);
    const auto dir = std::filesystem::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/vocab" / name;
    const auto fixture = nlohmann::json::parse(
        attnviz::test::slurp(std::filesystem::path(ATTNVIZ_SOURCE_DIR) /
                             "tests/fixtures/tokenizers" / (std::string(name) + ".json")));
    std::vector<int64_t> expected;
    for (const auto& c : fixture["cases"]) {
      if (c["text"] == text && c["add_special"] == true)
        expected = c["ids"].template get<std::vector<int64_t>>();
    }
    REQUIRE(!expected.empty());
    const auto tokenized = run_attnviz("tokenize --tokenizer '" + dir.string() + "' --text '" +
                                       text + "' --format json");
    REQUIRE_MESSAGE(tokenized.exit_code == 0, tokenized.err);
    const auto json = nlohmann::json::parse(tokenized.out);
    std::vector<int64_t> ids;
    std::string labels;
    for (const auto& t : json["tokens"]) {
      ids.push_back(t["id"].get<int64_t>());
      labels += "," + t["piece"].get<std::string>();
    }
    CHECK(ids == expected);
    // run on the same text: the weight table's header is the pieces.
    const auto ran =
        run_attnviz("run -m '" + std::string(ATTNVIZ_SOURCE_DIR) + "/samples/mha' --tokenizer '" +
                    dir.string() + "' --text '" + text + "' --table probs --format csv --head 0");
    REQUIRE_MESSAGE(ran.exit_code == 0, ran.err);
    CHECK_MESSAGE(contains(ran.out, labels + "\n"), ran.out);
  }
}

TEST_CASE(
    "text: --probe on a vocab.txt model without [CLS] names the missing special token, not the "
    "word 'a'") {
  TempDir dir;
  const std::string model =
      make_model(dir, false);  // init --vocab: a vocab.txt of t0 … t7, no [CLS] / [UNK]
  auto r = run_attnviz("run -m '" + model + "' --probe repeat:3 --table none");
  CHECK(r.exit_code == 1);  // the tokenizer's files, as when a text is given
  CHECK(contains(r.err, "'[CLS]'"));
  CHECK(contains(r.err, "--no-special-tokens"));
  CHECK_FALSE(contains(r.err, "the word 'a'"));
  r = run_attnviz("run -m '" + model + "' --probe repeat:3 --table none --no-special-tokens");
  CHECK_MESSAGE(r.exit_code == 0, r.err);
}

namespace {

// The ids `tokenize` gives for `text` with `flags`, from its JSON output.
std::vector<int64_t> tokenized_ids(const std::filesystem::path& dir, const std::string& text,
                                   const std::string& flags) {
  const auto r = run_attnviz("tokenize --tokenizer '" + dir.string() + "' --text '" + text +
                             "' --format json " + flags);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::vector<int64_t> ids;
  const auto json =
      nlohmann::json::parse(r.out);  // kept: a range over a temporary's member would dangle
  for (const auto& t : json["tokens"]) ids.push_back(t["id"].get<int64_t>());
  return ids;
}

// The reference fixture's ids of `text` (tests/fixtures/tokenizers/<name>.json), with or without
// special tokens.
std::vector<int64_t> reference_ids(const std::string& name, const std::string& text,
                                   bool add_special) {
  const auto fixture = nlohmann::json::parse(attnviz::test::slurp(
      std::filesystem::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/tokenizers" / (name + ".json")));
  for (const auto& c : fixture["cases"]) {
    if (c["text"] == text && c["add_special"] == add_special)
      return c["ids"].get<std::vector<int64_t>>();
  }
  FAIL("no reference case for " << name);
  return {};
}

// The BOS id as the tokenizer's files write it: tokenizer_config.json's bos_token looked up in
// tokenizer.json's added tokens, or GPT2Tokenizer's default <|endoftext|> in vocab.json.
int64_t bos_id_of_files(const std::filesystem::path& dir) {
  using nlohmann::json;
  if (std::filesystem::exists(dir / "vocab.json"))
    return json::parse(attnviz::test::slurp(dir / "vocab.json"))["<|endoftext|>"];
  const auto bos = json::parse(attnviz::test::slurp(dir / "tokenizer_config.json"))["bos_token"];
  const auto tokenizer = json::parse(attnviz::test::slurp(dir / "tokenizer.json"));
  for (const auto& t : tokenizer["added_tokens"]) {
    if (t["content"] == bos) return t["id"].get<int64_t>();
  }
  FAIL("no BOS token in " << dir);
  return -1;
}

}  // namespace

TEST_CASE(
    "text: --bos always puts the tokenizer's BOS first, never leaves it out, auto as the "
    "tokenizer") {
  const std::string text = "The cat sat on the mat.";
  const auto vocab = std::filesystem::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/vocab";
  // GPT-2 and this Llama 3 file add no BOS of their own. (Llama 3's 9 MB tokenizer.json takes
  // seconds to load under the sanitizers: its file is run for --bos always only, the case whose
  // BOS is its own; the others are one code path, taken by GPT-2's two files.)
  for (const char* name : {"gpt2", "gpt2-json", "llama3"}) {
    CAPTURE(name);
    const auto plain = reference_ids(name, text, true);
    auto with_bos = plain;
    with_bos.insert(with_bos.begin(), bos_id_of_files(vocab / name));  // 50256, 128000
    CHECK(tokenized_ids(vocab / name, text, "--bos always") == with_bos);
    if (std::string(name) == "llama3") continue;
    CHECK(tokenized_ids(vocab / name, text, "--bos always --no-special-tokens") == with_bos);
    CHECK(tokenized_ids(vocab / name, text, "--bos never") == plain);
    CHECK(tokenized_ids(vocab / name, text, "--bos auto") == plain);
  }
  // Mistral's LlamaTokenizer adds <s> itself: always keeps one, never takes it away.
  const auto llama2 = vocab / "llama2";
  CHECK(tokenized_ids(llama2, text, "--bos always") == reference_ids("llama2", text, true));
  CHECK(tokenized_ids(llama2, text, "--bos never") == reference_ids("llama2", text, false));
  // Qwen2.5 has no bos_token: always is a usage error naming the tokenizer.
  const auto qwen = run_attnviz("tokenize --tokenizer '" + (vocab / "qwen2_5").string() +
                                "' --text hi --bos always");
  CHECK(qwen.exit_code == 2);
  CHECK_MESSAGE(contains(qwen.err, "--bos always: tokenizer.json ("), qwen.err);
  CHECK(contains(qwen.err, "has no BOS token"));
  CHECK(run_attnviz("tokenize --tokenizer '" + llama2.string() + "' --text hi --bos sometimes")
            .exit_code == 2);
  // run takes it too: the first key is <|begin_of_text|>.
  const auto ran =
      run_attnviz("run -m '" + std::string(ATTNVIZ_SOURCE_DIR) + "/samples/mha' --tokenizer '" +
                  (vocab / "llama3").string() +
                  "' --text 'The cat' --bos always --table probs --format csv --head 0");
  REQUIRE_MESSAGE(ran.exit_code == 0, ran.err);
  CHECK_MESSAGE(contains(ran.out,
                         ",<|begin_of_text|>,The,\xe2\x90\xa3"
                         "cat"),
                ran.out);
}
