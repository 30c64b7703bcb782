// Word alignments from cross-attention: argmax and threshold links merged from tokens to words,
// Pharaoh lines, gold lines, and Och & Ney's AER, each against a hand calculation.
#include <doctest/doctest.h>

#include <cmath>

#include "attnviz/analysis/alignment.hpp"
#include "attnviz/inputs/words.hpp"
#include "error_of.hpp"

using namespace attnviz;
using attnviz::test::error_of;

TEST_CASE("alignment: argmax over the source tokens that have a word, merged to words") {
  // Target tokens: <pad> (no word), "▁Die" (word 0), "▁Kat" "ze" (word 1). Source tokens: "▁The"
  // (0), "▁c" "at" (1), "</s>" (none).
  Matrix w(4, 4);
  w << 0.1f, 0.2f, 0.3f, 0.4f,  // <pad>: no word, no link
      0.5f, 0.2f, 0.1f, 0.2f,   // Die → The
      0.1f, 0.3f, 0.1f, 0.5f,   // Kat → c (</s>'s 0.5 takes no part)
      0.2f, 0.2f, 0.6f, 0.0f;   // ze → at (cat): merged with Kat's link
  const std::vector<int> target{-1, 0, 1, 1}, source{0, 1, 1, -1};
  const Alignment a = align_words(w, target, source, {});
  CHECK(a == Alignment{{0, 0}, {1, 1}});
  CHECK(pharaoh(a) == "0-0 1-1");
  // Ties keep the lower index: Die's row with The and c equal.
  Matrix tie = w;
  tie(1, 1) = 0.5f;
  CHECK(pharaoh(align_words(tie, target, source, {})) == "0-0 1-1");
  // Threshold 0.3: Die → The (0.5); Kat → c (0.3); ze → at (0.6); The's 0.2 under it.
  const AlignRule at_least{AlignRule::Kind::threshold, 0.3f};
  CHECK(pharaoh(align_words(w, target, source, at_least)) == "0-0 1-1");
  const AlignRule low{AlignRule::Kind::threshold, 0.2f};
  CHECK(pharaoh(align_words(w, target, source, low)) == "0-0 0-1 1-0 1-1");
  CHECK(pharaoh({}) == "");
}

TEST_CASE("alignment: gold lines and the alignment error rate by hand") {
  const GoldAlignment g = parse_gold_line("0-0 1-1\t0?1 1-1\r", 2, 3, "gold.txt line 1");
  CHECK(g.sure == Alignment{{0, 0}, {1, 1}});
  CHECK(g.possible == Alignment{{0, 0}, {0, 1}, {1, 1}});
  // A = {0-1, 1-1}: |A∩S| = 1, |A∩P| = 2, |A| = 2, |S| = 2 → AER = 1 − 3/4.
  AerCounts c;
  c.add({{0, 1}, {1, 1}}, g);
  CHECK(c.aer() == doctest::Approx(0.25));
  // A second pair, A = S = {0-0}: summed, 1 − (2 + 3) / (3 + 3).
  c.add({{0, 0}}, parse_gold_line("0-0", 1, 1, "x"));
  CHECK(c.a == 3);
  CHECK(c.s == 3);
  CHECK(c.aer() == doctest::Approx(1.0 - 5.0 / 6.0));
  CHECK(std::isnan(AerCounts{}.aer()));
  CHECK(parse_gold_line("  ", 1, 1, "x").possible.empty());

  CHECK(error_of([] { parse_gold_line("0-0 1x2", 2, 3, "gold.txt line 4"); }) ==
        "gold.txt line 4: '1x2': expected i-j (sure) or i?j (possible) with word indices from 0");
  CHECK(error_of([] { parse_gold_line("0--1", 2, 3, "g"); }) ==
        "g: '0--1': expected i-j (sure) or i?j (possible) with word indices from 0");
  CHECK(error_of([] { parse_gold_line("2-0", 2, 3, "g"); }) ==
        "g: '2-0': the source has 2 words (indices 0 to 1)");
  CHECK(error_of([] { parse_gold_line("0-3", 2, 3, "g"); }) ==
        "g: '0-3': the target has 3 words (indices 0 to 2)");
}

TEST_CASE("words: whitespace words, and the word of each piece by its bytes") {
  const std::string text = "Die\u00a0Katze  sitzt\u3000.";
  CHECK(split_words(text) == std::vector<std::string>{"Die", "Katze", "sitzt", "."});
  CHECK(split_words(" \t\n").empty());
  // Pieces as SentencePiece makes them: a dummy-prefix "▁" of no byte, "Die", a "▁" over the
  // no-break space, "Kat", "ze", then </s> (added).
  const std::vector<TokenPiece> pieces{
      {5, "␣", 0, 0},   {6, "Die", 0, 3},       {7, "␣", 3, 5},    {8, "Kat", 5, 8},
      {9, "ze", 8, 10}, {10, "␣sitzt", 10, 17}, {11, ".", 20, 21}, {0, "</s>", 21, 21, true}};
  CHECK(word_of_pieces(text, pieces) == std::vector<int>{0, 0, 1, 1, 1, 2, 3, -1});
}
