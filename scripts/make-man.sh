#!/bin/sh
# Makes the man page attnviz.1 from the --help texts with help2man: the top-level help, then a
# COMMANDS section holding each subcommand's --help (help2man reads only the top-level one).
# Usage: scripts/make-man.sh path/to/attnviz attnviz.1   (CMake runs it at build time)
set -eu
bin=$1
out=$2
include="$out.h2m"
{
  printf '[COMMANDS]\n'
  for command in run stats check init inspect; do
    printf '.SS "attnviz %s"\n.nf\n' "$command"
    # roff: backslashes as \e, a leading dot or quote escaped, minus signs as \-.
    "$bin" "$command" --help | sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/" -e 's/-/\\-/g'
    printf '.fi\n'
  done
} >"$include"
# help2man writes non-ASCII as "?" unless told of a UTF-8 locale.
help2man --locale=C.UTF-8 --no-info --name "see what attention does, head by head" --include "$include" \
  --output "$out.tmp" "$bin"
# The help has UTF-8 (q·k, ×): man-db's preconv reads this tag on the first line.
{ printf "'\\\\\" -*- coding: UTF-8 -*-\n"; cat "$out.tmp"; } >"$out"
rm -f "$out.tmp" "$include"
