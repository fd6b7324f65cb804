#!/usr/bin/env bash
# Packaging check (issue 30; docs/packaging.md): build the sdist and the wheel (the wheel from the sdist), check their
# metadata, install the wheel with the train extra into a fresh virtual environment OUTSIDE the checkout, and run
# every command from a temporary folder: traitors-train --config tiny (end to end), traitors-eval (the kit and a
# shipped example agent), a scripted traitors-play game (standard input from a file), traitors-replay and
# traitors-view --html, traitors-bench for about a second, pettingzoo's api_test on each registered game, the shipped
# configs against configs/, the encoders (compiled where built, and a second wheel built without a compiler) against the reference.
# Fails (non-zero) at the first check that fails, naming it.
#
# Usage: scripts/check_wheel.sh [--wheel PATH] [--keep]
#   --wheel PATH  check this wheel instead of building one (e.g. a wheel with a file removed: the check must fail)
#   --keep        keep the temporary folder (its path is printed)
# Environment: PYTHON (default python: needs the packages build and twine, in the dev extra), TORCH_SPEC (default
# torch==2.13.0, the CPU build on the project's machines), TRAITORS_REQUIRE_COMPILED=1 (the wheel must carry a
# compiled encoder that loads: set where a C compiler is present, as in .ci/run).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python}
torch_spec=${TORCH_SPEC:-torch==2.13.0}
wheel=""
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --wheel) wheel=$(realpath "$2"); shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "check_wheel: unknown argument '$1'; expected --wheel PATH or --keep" >&2; exit 2 ;;
  esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/traitors-wheel.XXXXXX")
if [ "$keep" = 1 ]; then echo "check_wheel: keeping $work"; else trap 'rm -rf "$work"' EXIT; fi
began=$SECONDS
step_began=$SECONDS
step() {  # step NAME: prints the time the previous step took, then the new step's name
  echo "check_wheel: [$((SECONDS - step_began)) s] ---- $1"
  step_began=$SECONDS
}
fail() { echo "check_wheel: FAILED: $1" >&2; exit 1; }
quiet() {  # quiet LOG COMMAND…: runs the command with its output in LOG, shown (the end) only if it fails
  local log=$1; shift
  "$@" >"$log" 2>&1 || { tail -n 40 "$log" >&2; fail "$* (log: $log)"; }
}

# ---------------------------------------------------------------- build
if [ -z "$wheel" ]; then
  step "build: sdist, then the wheel from the sdist"
  quiet "$work/build.log" "$python" -m build --outdir "$work/dist" "$repo"
  wheel=$(ls "$work"/dist/*.whl)
  sdist=$(ls "$work"/dist/*.tar.gz)
  step "twine check --strict"
  "$python" -m twine check --strict "$work"/dist/*
  step "a second wheel from the sdist, built with no C compiler (CC=false): the pure-Python encoder"
  CC=false quiet "$work/build-nocc.log" "$python" -m pip wheel --quiet --no-deps --wheel-dir "$work/nocc" "$sdist"
  nocc_wheel=$(ls "$work"/nocc/*.whl)
  if "$python" -m zipfile -l "$nocc_wheel" | grep -q '_encoder.*\.so'; then fail "the no-compiler wheel carries a compiled encoder"; fi
else
  nocc_wheel=""
fi
so_in_wheel=$("$python" -m zipfile -l "$wheel" | grep -c '_encoder.*\.so' || true)
echo "check_wheel: $(basename "$wheel"): $(du -k "$wheel" | cut -f1) KiB, $("$python" -m zipfile -l "$wheel" | tail -n +2 | wc -l) files, compiled encoder in it: $so_in_wheel"
if [ "${TRAITORS_REQUIRE_COMPILED:-}" = 1 ] && [ "$so_in_wheel" = 0 ]; then
  fail "TRAITORS_REQUIRE_COMPILED=1 but the wheel has no compiled encoder (_encoder*.so)"
fi

# ---------------------------------------------------------------- a fresh environment outside the checkout
step "fresh venv in $work/venv: $torch_spec, then the wheel with the train extra"
"$python" -m venv "$work/venv"
venv_python="$work/venv/bin/python"
quiet "$work/pip-torch.log" "$venv_python" -m pip install "$torch_spec"
quiet "$work/pip-wheel.log" "$venv_python" -m pip install "${wheel}[train]"

mkdir "$work/run"
cd "$work/run"
unset PYTHONPATH
export PATH="$work/venv/bin:$PATH"
export MPLBACKEND=Agg
case "$(pwd -P)/" in "$repo"/*) fail "the temporary folder $(pwd) lies inside the checkout $repo" ;; esac
smoke() { python - "$@" <"$repo/scripts/check_wheel_smoke.py"; }  # stdin: sys.path[0] is this folder, not scripts/

require_compiled=""
if [ "${TRAITORS_REQUIRE_COMPILED:-}" = 1 ]; then require_compiled="--require-compiled"; fi
step "import traitors_env from the environment: version, compiled encoder"
smoke snapshot "$work/files-before.txt"
smoke installed $require_compiled

step "the shipped configs are configs/'s, and each loads"
mapfile -t names < <(cd "$repo/configs" && find . -name '*.yaml' | sed -e 's#^\./##' -e 's#\.yaml$##' | sort)
smoke configs "${names[@]}"
traitors-train --list-configs

step "traitors-train --config tiny (train, evaluate)"
quiet "$work/train.log" traitors-train --config tiny
[ -f runs/tiny/evaluation.md ] || fail "traitors-train --config tiny wrote no runs/tiny/evaluation.md under $(pwd)"
tail -n 1 "$work/train.log"

step "traitors-eval --agents random heuristic --players 3 8 --games 5; a shipped example agent"
quiet "$work/eval.log" traitors-eval --agents random heuristic --players 3 8 --games 5 --out reports/kit --no-progress
[ -f reports/kit/report.md ] || fail "traitors-eval wrote no reports/kit/report.md"
quiet "$work/eval-plank.log" traitors-eval --agents heuristic plank=traitors_env.examples.plank_pirate:make \
  --players 5 --games 2 --out reports/plank --no-progress
[ -f reports/plank/report.md ] || fail "traitors-eval with traitors_env.examples.plank_pirate wrote no report"

step "traitors-play: a scripted game ('?' for the rules, then always the first choice), traitors-replay"
{ echo "?"; for _ in $(seq 3000); do echo 1; done; } >answers.txt
quiet "$work/play.log" traitors-play --players 3 --seed 11 --bots random --record game.json <answers.txt
grep -q "THE RULES IN SHORT" "$work/play.log" || fail "traitors-play did not show the rules for '?'"
[ -f game.json ] || fail "traitors-play saved no game record"
quiet "$work/replay.log" traitors-replay game.json --no-pause --reveal
# traitors-view's static export: the page's script and style sheet are package data of the wheel.
quiet "$work/view.log" traitors-view game.json --html site
[ -f site/index.html ] && [ -f site/viewer.js ] && [ -f site/viewer.css ] || fail "traitors-view --html wrote no page"

step "traitors-bench for about a second"
quiet "$work/bench.log" traitors-bench --seconds 0.2 --repeats 1 --slices 1 --players 3 --the-traitors-players 3 \
  --memory-games 0 --quiet
grep "compiled\|pure Python" "$work/bench.log" | head -n 2 || true

step "pettingzoo.test.api_test on each registered game"
smoke api

step "observations: encode == encode_python over random games (every table size, claims on and off)"
smoke encoder "$work/observations.sha256"

step "nothing was written inside the installed packages"
smoke snapshot "$work/files-after.txt"
diff "$work/files-before.txt" "$work/files-after.txt" || fail "files inside the installed packages changed (diff above)"

if [ -n "$nocc_wheel" ]; then
  step "the no-compiler wheel: the pure-Python encoder loads and gives the very same observations"
  quiet "$work/pip-nocc.log" python -m pip install --no-deps --force-reinstall "$nocc_wheel"
  smoke installed --require-python
  smoke encoder "$work/observations.sha256"
  quiet "$work/train-nocc.log" traitors-train --config tiny --name tiny-python --no-eval
fi

step "done"
echo "check_wheel: passed in $((SECONDS - began)) s ($(basename "$wheel"))"
