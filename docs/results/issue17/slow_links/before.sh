#!/bin/bash
# The first repetition of run.sh's CG, FFT-3D and LU at 100 Mbit/s (its
# traces in /tmp/loom-slow-links) replayed by the model before each of the
# three fixes and after them (MODEL.md, "The planned push's homes, and a
# bucket counted twice"): 22a0ca3 (none), ecd957e (the push's homes),
# b4656af (and a message beyond the bucket), 768307c (and a fetch behind
# it).  One line a model and program (compare.py); before.txt.
set -e
cd "$(dirname "$0")/../../../.."
R=docs/results/issue17/slow_links
T=${TRACES:-/tmp/loom-slow-links}
P=docs/results/issue17/paired_815cfc9
PLAT="--platform $P/platform_one_host.json --platform $P/platform_h2_100mbit.json --platform $P/links_100mbit.json"
: > $R/before.txt
for rev in 22a0ca3 ecd957e b4656af 768307c; do
  M=/tmp/loom-model-$rev
  rm -rf $M && mkdir -p $M && git archive $rev tools | tar -x -C $M
  for app in cg fft3d lu; do
    d=$T/$app.h2_100mbit.0 d1=$T/$app.h1_100mbit.0 o=/tmp/loom-before-$rev
    mkdir -p $o/a $o/b
    cp $d.stats.json $o/a.stats.json
    $M/tools/loom predict $d $PLAT --json 2>/dev/null > $o/a.predict.json
    $M/tools/loom predict $d1 $PLAT --hosts 2 --json 2>/dev/null > $o/b.predict.json
    echo "$rev $(python3 $R/compare.py $app 0 $o/a $o/b)" | tee -a $R/before.txt
  done
done
