// The normalizers' bound on the text they make (32 MiB): tens of megabytes of text each, so a file
// of its own in the slow tier (tests/tiers.cmake).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "attnviz/inputs/tokenizers/pipeline/text_pipeline.hpp"
#include "error_of.hpp"
#include "normalize_spec.hpp"

using namespace attnviz;
using attnviz::test::error_of;
using attnviz::test::normalize;
using attnviz::test::normalized;
using nlohmann::json;

TEST_CASE(
    "normalizers: a Replace that multiplies the text is refused by the bound, naming the part") {
  // 40,000 "a" → 40,000 × 1,000 bytes = 40 MB, past the 32 MiB bound: an Error, not a bare
  // bad_alloc.
  const json multiply = {
      {"type", "Replace"}, {"pattern", {{"String", "a"}}}, {"content", std::string(1000, 'b')}};
  const std::string bound =
      ": the normalized text would pass 32 MiB (attnviz's bound: 4 times the 8 MiB of text it "
      "tokenizes); this normalizer multiplies the text";
  CHECK(error_of([&] { normalize(multiply, std::string(40000, 'a')); }) ==
        "tok.json: normalizer" + bound);
  // In a Sequence, each doubling is fine until one passes: the error names that one.
  const json twice = {{"type", "Replace"}, {"pattern", {{"String", "a"}}}, {"content", "aa"}};
  const json sequence = {{"type", "Sequence"},
                         {"normalizers", json::array({twice, twice, twice, twice, twice})}};
  CHECK(normalized(sequence, "a").size() == 32);
  CHECK(error_of([&] { normalize(sequence, std::string(2u << 20, 'a')); }) ==
        "tok.json: normalizer.normalizers[4]" + bound);  // 2 MiB × 2^4 = 32 MiB, then 64
  // Prepend's prefix counts too.
  const json prefix = {{"type", "Prepend"}, {"prepend", std::string(33u << 20, 'p')}};
  CHECK(error_of([&] { normalize(prefix, "x"); }) == "tok.json: normalizer" + bound);
  // Replace(" ", "▁") on 8 MiB of spaces triples it, inside the bound.
  const json metaspace = {
      {"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}};
  CHECK(normalized(metaspace, std::string(8u << 20, ' ')).size() == 24u << 20);
}
