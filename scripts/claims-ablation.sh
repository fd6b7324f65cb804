#!/usr/bin/env bash
# The claims ablation (docs/benchmark/index.md, "Claims ablation"): train the quick budget with the claim step on and
# off (configs/ablation/claims-{on,off}.yaml: nothing else differs) for the same seeds, then measure
# both arms with the benchmark kit against the heuristic, each in its own game (claims on / off).
#
#   bash scripts/claims-ablation.sh            # train what is missing, then evaluate
#   SEEDS="0 1 2 3 4" GAMES=300 bash scripts/claims-ablation.sh
#   STAGE=train bash scripts/claims-ablation.sh  # only train;  STAGE=eval: only evaluate
#
# Runs land in runs/ablation/seed<S>/claims-<arm>/, reports in reports/ablation/claims-<arm>/.
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS=${SEEDS:-"0 1 2"}
GAMES=${GAMES:-200}
WORKERS=${WORKERS:-2}
STAGE=${STAGE:-all}

if [[ $STAGE == all || $STAGE == train ]]; then
  for seed in $SEEDS; do
    for arm in on off; do
      run=runs/ablation/seed$seed/claims-$arm
      if [[ -f $run/state.json ]]; then resume=--resume; else resume=--force; fi
      traitors-train --config configs/ablation/claims-$arm.yaml --seed "$seed" \
        --output-dir "runs/ablation/seed$seed" --no-eval $resume
    done
  done
fi

if [[ $STAGE == all || $STAGE == eval ]]; then
  for arm in on off; do
    members=()
    for seed in $SEEDS; do members+=("runs/ablation/seed$seed/claims-$arm"); done
    flag=(); [[ $arm == off ]] && flag=(--no-claims)
    # One agent "claims-<arm>" made of its seeds (aggregated with a bootstrap over seeds), played
    # against the heuristic in both roles; random and the heuristic itself as reference rows.
    traitors-eval --agents heuristic random "claims-$arm=$(IFS=,; echo "${members[*]}")" \
      --anchor heuristic --players 3 4 5 6 7 8 --games "$GAMES" --workers "$WORKERS" "${flag[@]}" \
      --out "reports/ablation/claims-$arm"
  done
  python -m traitors_env.evaluation.compare reports/ablation/claims-on reports/ablation/claims-off \
    --group claims-on claims-off | tee reports/ablation/comparison.md
fi
