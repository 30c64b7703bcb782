#!/usr/bin/env bash
# The earlier name of scripts/make-docs.sh, which regenerates the pictures and examples of README.md
# and docs/.
exec "$(dirname "$0")/make-docs.sh" "$@"
