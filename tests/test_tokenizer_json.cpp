// tokenizer.json read end to end (through find_tokenizer) on small hand-written files with a
// WordLevel model: added tokens, the template, tokenizer_config.json's add_bos_token/add_eos_token
// for Llama-class tokenizers, labels, and each refusal naming the file and field.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>

#include "attnviz/core/error.hpp"
#include "attnviz/inputs/tokenizer.hpp"
#include "attnviz/inputs/tokenizers/find_tokenizer.hpp"
#include "error_of.hpp"
#include "temp_dir.hpp"

using namespace attnviz;
using attnviz::test::error_of;
using attnviz::test::TempDir;

namespace {

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A Llama-2-like file: "<s> $A" template; words split on spaces; a WordLevel vocabulary.
std::string tokenizer_json(
    const std::string& model =
        R"({"type":"WordLevel","vocab":{"<unk>":0,"<s>":1,"</s>":2,"the":3,"cat":4},"unk_token":"<unk>"})") {
  return R"({"version":"1.0","truncation":null,"padding":null,
    "added_tokens":[{"id":0,"content":"<unk>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
                    {"id":1,"content":"<s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
                    {"id":2,"content":"</s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}],
    "normalizer":null,
    "pre_tokenizer":{"type":"Split","pattern":{"String":" "},"behavior":"Removed","invert":false},
    "post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],
       "pair":[],"special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]}}},
    "decoder":null,
    "model":)" +
         model + "}";
}

std::string ids_of(const Tokenizer& t, const std::string& text, bool add_special = true) {
  std::string out;
  for (const TokenPiece& p : t.encode(text, add_special))
    out += fmt::format("{}{}:{}", out.empty() ? "" : " ", p.id, p.label);
  return out;
}

}  // namespace

TEST_CASE("tokenizer.json: template, added tokens in the text, unknown words, labels") {
  TempDir dir;
  write(dir.path() / "tokenizer.json", tokenizer_json());
  const auto t = find_tokenizer(dir.path());
  REQUIRE(t);
  CHECK(ids_of(*t, "the cat") == "1:<s> 3:the 4:cat");
  CHECK(ids_of(*t, "the cat", false) == "3:the 4:cat");
  CHECK(ids_of(*t, "the dog</s>") == "1:<s> 3:the 0:<unk> 2:</s>");
  CHECK(t->label(4) == "cat");
  CHECK(t->vocab_size() == 5);
  CHECK(t->description() == "tokenizer.json (WordLevel, 5 tokens, 3 added tokens)");
  // The file itself, given as --tokenizer would give it.
  CHECK(ids_of(*find_tokenizer(dir.path() / "tokenizer.json"), "cat") == "1:<s> 4:cat");
}

TEST_CASE(
    "tokenizer_config.json of a Llama-class tokenizer rebuilds the template as transformers does") {
  TempDir dir;
  write(dir.path() / "tokenizer.json", tokenizer_json());
  write(
      dir.path() / "tokenizer_config.json",
      R"({"tokenizer_class":"LlamaTokenizer","add_bos_token":false,"add_eos_token":true,"eos_token":"</s>"})");
  CHECK(ids_of(*find_tokenizer(dir.path()), "the cat") == "3:the 4:cat 2:</s>");
  // Defaults: add_bos_token true, add_eos_token false; a token may be saved as {"content": …}.
  write(
      dir.path() / "tokenizer_config.json",
      R"({"tokenizer_class":"LlamaTokenizerFast","bos_token":{"content":"</s>","lstrip":false}})");
  CHECK(ids_of(*find_tokenizer(dir.path()), "cat") == "2:</s> 4:cat");
  // Another class keeps tokenizer.json's post-processor.
  write(dir.path() / "tokenizer_config.json",
        R"({"tokenizer_class":"PreTrainedTokenizerFast","add_bos_token":false})");
  CHECK(ids_of(*find_tokenizer(dir.path()), "cat") == "1:<s> 4:cat");
  const std::string config = (dir.path() / "tokenizer_config.json").string();
  write(dir.path() / "tokenizer_config.json",
        R"({"tokenizer_class":"LlamaTokenizer","add_bos_token":"yes"})");
  CHECK(error_of([&] { find_tokenizer(dir.path()); }) ==
        config + ": add_bos_token: expected true or false, got \"yes\"");
  write(dir.path() / "tokenizer_config.json",
        R"({"tokenizer_class":"LlamaTokenizer","bos_token":"<bos>"})");
  CHECK(error_of([&] { find_tokenizer(dir.path()); }) ==
        config + ": the special token '<bos>' (tokenizer_class LlamaTokenizer) is not in " +
            (dir.path() / "tokenizer.json").string());
  write(dir.path() / "tokenizer_config.json", "[1]");
  CHECK(error_of([&] { find_tokenizer(dir.path()); }) ==
        config + ": expected a JSON object, got array");
}

TEST_CASE("tokenizer.json refusals name the file and the field") {
  TempDir dir;
  const std::string file = (dir.path() / "tokenizer.json").string();
  const auto error_with = [&](const std::string& text) {
    write(dir.path() / "tokenizer.json", text);
    return error_of([&] { find_tokenizer(dir.path()); });
  };
  CHECK(error_with("[]") == file + ": expected a JSON object, got array");
  CHECK(error_with("{}") == file + ": model: missing");
  CHECK(error_with(tokenizer_json(R"({"type":"Magic"})"))
            .starts_with(file + ": model.type: the model 'Magic' is not one attnviz implements"));
  CHECK(error_with(tokenizer_json(R"({"type":"WordLevel","vocab":{"a":0,"b":0}})")) ==
        file + ": model.vocab: tokens 'a' and 'b' both have id 0 (ids must be unique)");
  CHECK(error_with(tokenizer_json(R"({"type":"WordLevel","vocab":{"a":-1}})")) ==
        file + ": model.vocab: token 'a' has id -1, expected a non-negative integer below 2^31");
  // tokenizers reads a WordLevel whose unk_token is not in the vocabulary (its default "<unk>"
  // serialised beside a vocabulary without it), and fails only on a word it lacks.
  write(dir.path() / "tokenizer.json",
        R"({"pre_tokenizer":{"type":"WhitespaceSplit"},
            "model":{"type":"WordLevel","vocab":{"a":0},"unk_token":"<unk>"}})");
  const auto no_unk = find_tokenizer(dir.path());
  REQUIRE(no_unk);
  CHECK(ids_of(*no_unk, "a a", false) == "0:a 0:a");
  CHECK(error_of([&] { no_unk->encode("a b", false); }) ==
        file + ": the word 'b' is not in the vocabulary, and its unk_token '<unk>' is not either");
  CHECK(error_with(R"({"added_tokens":[{"id":1}],"model":{"type":"WordLevel","vocab":{}}})") ==
        file + ": added_tokens[0].content: missing");
  CHECK(
      error_with(
          R"({"added_tokens":[{"id":"1","content":"x"}],"model":{"type":"WordLevel","vocab":{}}})") ==
      file + ": added_tokens[0].id: expected an integer, got \"1\"");
  CHECK(error_with(R"({"normalizer":{"type":"Magic"},"model":{"type":"WordLevel","vocab":{}}})")
            .starts_with(
                file + ": normalizer.type: the normalizer 'Magic' is not one attnviz implements"));
  // Ids past the vocabulary (5 ids) or past tokenizers' u32, in any part, name the part.
  const auto replaced = [](std::string text, const std::string& from, const std::string& to) {
    REQUIRE(text.find(from) != std::string::npos);
    return text.replace(text.find(from), from.size(), to);
  };
  CHECK(error_with(replaced(tokenizer_json(), R"("ids":[1])", R"("ids":[1099511627776])")) ==
        file +
            ": post_processor.special_tokens.<s>.ids[0]: id 1099511627776 is outside the "
            "vocabulary (5 ids: the "
            "model's and the added tokens')");
  CHECK(error_with(replaced(tokenizer_json(), R"("ids":[1])", R"("ids":[5])")) ==
        file +
            ": post_processor.special_tokens.<s>.ids[0]: id 5 is outside the vocabulary (5 ids: "
            "the model's and "
            "the added tokens')");
  CHECK(error_with(replaced(tokenizer_json(), R"({"id":"<s>","type_id":0})",
                            R"({"id":"<s>","type_id":9223372036854775808})")) ==
        file +
            ": post_processor.single[0].SpecialToken.type_id: expected an integer from 0 to 2^32 - "
            "1, got "
            "9223372036854775808");
  CHECK(error_with(replaced(tokenizer_json(), R"({"id":"A","type_id":0})",
                            R"({"id":"A","type_id":-1})")) ==
        file +
            ": post_processor.single[1].Sequence.type_id: expected an integer from 0 to 2^32 - 1, "
            "got -1");
  // An added token and the model must agree on its id (tokenizers would use the model's).
  CHECK(error_with(replaced(tokenizer_json(), R"({"id":1,"content":"<s>")",
                            R"({"id":3,"content":"<s>")")) ==
        file + ": added_tokens[1].id: '<s>' has id 3 here but 1 in the model's vocabulary");
  CHECK(error_with(tokenizer_json(
            R"({"type":"WordLevel","vocab":{"<unk>":0,"the":1,"cat":2},"unk_token":"<unk>"})")) ==
        file + ": added_tokens[1].id: id 1 is '<s>' here but 'the' in the model's vocabulary");
  // A word without an unknown token to fall back on is never dropped.
  write(dir.path() / "tokenizer.json",
        tokenizer_json(R"({"type":"WordLevel","vocab":{"<s>":1,"the":3}})"));
  CHECK(error_of([&] { find_tokenizer(dir.path())->encode("the cat", true); }) ==
        file + ": the word 'cat' is not in the vocabulary, which has no unknown token");
}
