#!/usr/bin/env bash
# Run the numerical tests under several OpenBLAS core types (the BLAS kernels that
# numpy's and scipy's wheels select at run time), in ./.venv like scripts/test.sh.
#
# Why: the kernels differ in summation order, so every matrix product rounds a little
# differently. A solver whose stopping rule, line search or active set hangs on the
# last bit passes on one CPU and fails on another (issue 39); OPENBLAS_CORETYPE
# reproduces any supported kernel set on one machine.
#
# Usage: bash scripts/test-cpus.sh [--ci] [--coretypes "A B ..."] [--threads "1 2"]
#                                  [--jobs N] [--] [pytest targets or options]
#   --ci          the CI subset (solvers, MKL solvers, Kundu / SimSVM kernel learning,
#                 study cells) instead of the full numerical set
#   --coretypes   core types to try (default: Prescott Sandybridge Haswell SkylakeX Zen,
#                 those this CPU supports by its /proc/cpuinfo flags; a core type whose
#                 kernels are the same as one already run, e.g. Zen = Haswell in the
#                 pinned wheels, is run once)
#   --threads     BLAS thread counts to try for each core type (default: 1); thread
#                 counts change how BLAS splits its reductions, so "1 2" tests more
#   --jobs        pytest-xdist workers (default 2, as scripts/test.sh)
#   test paths (tests/mkl, tests/x.py::test_y) replace the preset; other arguments are
#   passed to pytest (e.g. -k EXPR)
#   PROXLEARN_SKIP_SETUP=1 skips scripts/setup.sh (.ci/run has just run it).
# Exit status: 0 when every run passed, 1 when a test failed under some core type,
# 2 on a usage error or when a core type could not be selected.
set -euo pipefail
cd "$(dirname "$0")/.."

# The full numerical set, and the CI subset (225 tests): --ci --threads "1 2" under
# Prescott, Sandybridge, Haswell, SkylakeX (8 runs of 24-40 s) took 4 min 13 s of wall
# time and 203 s of CPU on the shared 2-core machine of 2026-11-27 at load average 5
# (26 min at load average 15).
FULL=(tests/solvers tests/mkl tests/kernel_learning tests/manifold tests/cluster
      tests/ranking tests/_svm tests/test_docstrings.py tests/krein tests/kernel_ridge
      tests/test_linalg.py tests/transforms/test_spectrum_shift.py
      "tests/study/test_study_core.py::test_run_cell_picks_best_cv_and_reports_error"
      "tests/study/test_study_core.py::test_fold_evaluators_match_the_estimators"
      tests/study/papers/test_zhuang2011_mkl.py::test_fold_evaluators_equal_fitting_per_c
      tests/study/papers/test_zhuang2011_mkl.py::test_run_cell_slices_feature_rows_only)
CI=(tests/solvers tests/mkl/test_solvers.py tests/mkl/test_nonsparse_newton.py
    tests/mkl/test_entropic_kernel_learning.py tests/kernel_learning/test_simsvm.py
    "tests/study/test_study_core.py::test_run_cell_picks_best_cv_and_reports_error"
    tests/study/papers/test_zhuang2011_mkl.py::test_fold_evaluators_equal_fitting_per_c)

coretypes="Prescott Sandybridge Haswell SkylakeX Zen"
threads="1"
jobs=2
subset=full
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --ci) subset=ci; shift ;;
        --coretypes) coretypes=${2:?--coretypes needs a list}; shift 2 ;;
        --threads) threads=${2:?--threads needs a list}; shift 2 ;;
        --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
        -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
        --) shift; extra+=("$@"); break ;;
        *) extra+=("$1"); shift ;;
    esac
done
# Arguments that name a test path (file, directory, file::test) replace the preset;
# the others are pytest options (-k EXPR, -x, ...), added to it.
given=()
options=()
for a in "${extra[@]+"${extra[@]}"}"; do
    if [ -e "${a%%::*}" ]; then given+=("$a"); else options+=("$a"); fi
done
if [ "${#given[@]}" -gt 0 ]; then
    targets=("${given[@]}")
    subset=given
elif [ "$subset" = ci ]; then
    targets=("${CI[@]}")
else
    targets=("${FULL[@]}")
fi
targets+=("${options[@]+"${options[@]}"}")

if [ "${PROXLEARN_SKIP_SETUP:-0}" != 1 ]; then
    bash scripts/setup.sh dev
fi
PY=.venv/bin/python
export MPLBACKEND=Agg

# Instruction sets each core type's kernels need (Linux /proc/cpuinfo flag names).
needs() {
    case "$1" in
        Prescott) echo "pni" ;;
        Core2|Penryn) echo "ssse3" ;;
        Nehalem) echo "sse4_2" ;;
        Sandybridge) echo "avx" ;;
        Haswell|Zen) echo "avx2 fma" ;;
        SkylakeX) echo "avx512f avx512cd avx512bw avx512dq avx512vl" ;;
        Cooperlake) echo "avx512f avx512cd avx512bw avx512dq avx512vl avx512_bf16" ;;
        *) echo "unknown" ;;
    esac
}
flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "

# The kernel set OpenBLAS actually runs under OPENBLAS_CORETYPE=$1 (as threadpoolctl
# reports it; "none" when numpy's BLAS is not OpenBLAS).
arch_of() {
    env OPENBLAS_CORETYPE="$1" "$PY" -c '
import numpy, scipy.linalg
from threadpoolctl import threadpool_info
archs = sorted({i.get("architecture") or "?" for i in threadpool_info()
                if i.get("internal_api") == "openblas"})
print(",".join(archs) or "none")'
}
# OpenBLAS reports some core types under another name (its kernel tables).
same_kernels() {  # requested reported
    case "$1:$2" in
        Prescott:Katmai|Zen:Haswell) return 0 ;;
    esac
    [ "$1" = "$2" ]
}

runs=()
if [ "$flags" = "  " ]; then
    echo "test-cpus: no x86 flags in /proc/cpuinfo ($(uname -m)): OpenBLAS core types are"
    echo "x86 kernel sets; running once with the default kernels."
    runs=("default")
else
    seen=" "
    for ct in $coretypes; do
        req=$(needs "$ct")
        if [ "$req" = unknown ]; then
            echo "test-cpus: unknown core type '$ct' (known: Prescott Core2 Penryn Nehalem" \
                 "Sandybridge Haswell Zen SkylakeX Cooperlake)" >&2
            exit 2
        fi
        missing=""
        for f in $req; do
            case "$flags" in *" $f "*) ;; *) missing="$missing $f" ;; esac
        done
        if [ -n "$missing" ]; then
            echo "test-cpus: skip $ct: this CPU lacks$missing"
            continue
        fi
        arch=$(arch_of "$ct")
        if [ "$arch" = none ]; then
            echo "test-cpus: numpy's BLAS is not OpenBLAS: core types cannot be chosen;" \
                 "running once with its default kernels."
            runs=("default")
            break
        fi
        if ! same_kernels "$ct" "$arch"; then
            echo "test-cpus: OPENBLAS_CORETYPE=$ct was not honoured (OpenBLAS runs $arch)" >&2
            exit 2
        fi
        case "$seen" in
            *" $arch "*) echo "test-cpus: skip $ct: same kernels ($arch) as a core type" \
                              "already in the list"; continue ;;
        esac
        seen="$seen$arch "
        runs+=("$ct")
    done
fi
if [ "${#runs[@]}" -eq 0 ]; then
    echo "test-cpus: no core type of '$coretypes' runs on this CPU" >&2
    exit 2
fi

logdir=$(mktemp -d "${TMPDIR:-/tmp}/proxlearn-test-cpus.XXXXXX")
echo "test-cpus: ${#runs[@]} core type(s) x threads {$threads}, $subset set," \
     "${#targets[@]} target(s); logs in $logdir"
summary=()
status=0
for ct in "${runs[@]}"; do
    for th in $threads; do
        log="$logdir/$ct-threads$th.log"
        start=$(date +%s)
        set +e
        envs=(OMP_NUM_THREADS="$th" OPENBLAS_NUM_THREADS="$th")
        [ "$ct" = default ] || envs+=(OPENBLAS_CORETYPE="$ct")
        env -u OPENBLAS_CORETYPE "${envs[@]}" "$PY" -m pytest -n "$jobs" -q -p no:cacheprovider -rfE "${targets[@]}" \
            >"$log" 2>&1
        rc=$?
        set -e
        secs=$(( $(date +%s) - start ))
        result=$(grep -E '^(=+ )?[0-9]+ (passed|failed|error)' "$log" | tail -1 | tr -d '=' \
                 | sed 's/^ *//; s/ *$//')
        [ -n "$result" ] || result="pytest exit status $rc (see the log)"
        if [ "$rc" -eq 0 ]; then
            summary+=("$(printf 'PASS  %-12s threads=%s  %4ss  %s' "$ct" "$th" "$secs" "$result")")
            echo "${summary[-1]}"
        else
            status=1
            summary+=("$(printf 'FAIL  %-12s threads=%s  %4ss  %s' "$ct" "$th" "$secs" "$result")")
            echo "${summary[-1]}"
            grep -E '^(FAILED|ERROR) ' "$log" | sed 's/^/      /' || tail -20 "$log"
            echo "      log: $log"
        fi
    done
done

echo
echo "test-cpus summary (OPENBLAS_CORETYPE, BLAS threads, seconds, pytest result):"
printf '  %s\n' "${summary[@]}"
if [ "$status" -ne 0 ]; then
    echo "test-cpus: FAILED under some core type: a solver that passes only on some BLAS"
    echo "kernels is a bug in the solver or the test (never loosen its tolerance)."
else
    rm -rf "$logdir"
fi
exit "$status"
