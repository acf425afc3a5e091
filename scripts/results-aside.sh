#!/usr/bin/env bash
# A device call carries at most 64 MiB of disk blocks, the tree included, and bench/results/ (the
# recorded runs, which no device command reads) is most of the tree: with it, not even bundle-x/
# fits beside. Before a call, move the results folders out of the tree; after it, move them back.
#   scripts/results-aside.sh out [KEEP...]   every bench/results/* but KEEP (folder names) -> $ASIDE
#   scripts/results-aside.sh back            all of $ASIDE back under bench/results/
#   scripts/results-aside.sh status          what is aside, and the tree's size in disk blocks
# ASIDE defaults to /tmp/ako-results-aside. While they are aside, git sees the folders deleted:
# run `back` before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
ASIDE=${ASIDE:-/tmp/ako-results-aside}
# What a device call copies: tracked files and untracked ones git does not ignore (not `carry`).
tree_mib() {
  git ls-files -z --cached --others --exclude-standard | xargs -0 du -c --block-size=1K 2>/dev/null \
    | awk '$2 == "total" { t += $1 } END { printf "%.1f", t / 1024 }'
}
case ${1:-} in
  out)
    shift
    for k in "$@"; do  # a misspelt KEEP would move the folder the call needs
      [ -d "bench/results/$k" ] || { echo "results-aside: no folder bench/results/$k to keep" >&2; exit 2; }
    done
    mkdir -p "$ASIDE"
    for d in bench/results/*; do
      name=$(basename "$d")
      [ -d "$d" ] || continue
      for k in "$@"; do [ "$name" = "$k" ] && continue 2; done
      [ -e "$ASIDE/$name" ] && { echo "results-aside: $ASIDE/$name exists already (run back first)" >&2; exit 1; }
      mv "$d" "$ASIDE/"
    done
    echo "aside: $(ls "$ASIDE" | wc -l) folders in $ASIDE; the tree a call copies now: $(tree_mib) MiB of disk blocks"
    ;;
  back)
    [ -d "$ASIDE" ] || { echo "results-aside: nothing aside ($ASIDE)"; exit 0; }
    for d in "$ASIDE"/*; do
      [ -e "$d" ] || continue
      name=$(basename "$d")
      [ -e "bench/results/$name" ] && { echo "results-aside: bench/results/$name exists; left $d where it is" >&2; exit 1; }
      mv "$d" bench/results/
    done
    rmdir "$ASIDE"
    git status --short bench/results | grep '^ D' && { echo "results-aside: files still missing" >&2; exit 1; }
    echo "back: bench/results/ complete"
    ;;
  status)
    ls "$ASIDE" 2>/dev/null || echo "nothing aside"
    echo "the tree a call copies: $(tree_mib) MiB of disk blocks (the limit, with carry: 64)"
    ;;
  *) [ -n "${1:-}" ] && echo "results-aside: unknown command '$1'" >&2; sed -n 2,9p "$0" >&2; exit 2 ;;
esac
