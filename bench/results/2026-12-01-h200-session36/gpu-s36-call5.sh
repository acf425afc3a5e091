#!/usr/bin/env bash
# Session 36, call 5 (nvidia-h200; carry bundle-x, rebuilt from this tree). The tree's qknorm kernel (calls 2-4: per head
# the 16-byte store through __stwb and the mean by 1 / HEAD_DIM; both forms the weight loaded with x where it fits in 12
# registers) changed what a launch point costs; wan13b's class, tuned in session 25 on the kernel before (640 variants,
# level), holds the shape's cases nearest the 95% bar (per head 95.7-95.9%, across heads 95.0-95.1% in call 4, before
# the across-heads early weight). A fresh tune of wan13b's class (`ako tune`, 150 s) and its config against the tree's,
# A B B A. Prediction: level within 0.5% (the space was flat in session 25).
# Back: summary.txt (printed last), cases.txt, config-after.json, config.diff, details.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
OUT=$OUT TUNE_TIME=150 scripts/gpu-tune-abba.sh qknorm wan13b-480p
