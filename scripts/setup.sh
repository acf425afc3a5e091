#!/usr/bin/env bash
# Set up and build ako on a fresh Debian/Ubuntu machine.
#   scripts/setup.sh            install packages (when missing) and build into build/
#   AKO_SKIP_APT=1 scripts/setup.sh   build only
# CUDA comes from /usr/local/cuda (CMake's find_package(CUDAToolkit)); it is not installed here.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake g++ pkg-config
          libgit2-dev nlohmann-json3-dev libfmt-dev libcli11-dev
          libbenchmark-dev libgtest-dev libssl-dev zlib1g-dev
          openmpi-bin libopenmpi-dev)
# Wanted, not required: headless Chromium renders report.html in the report tests (Debian 12
# has the package; where the distribution lacks it, those tests skip and say why).
OPTIONAL_PACKAGES=(chromium-headless-shell)

SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
optional=()
for p in "${OPTIONAL_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || optional+=("$p")
done
if [ "${AKO_SKIP_APT:-0}" != 1 ] && [ $((${#missing[@]} + ${#optional[@]})) -gt 0 ]; then
  $SUDO apt-get update -qq
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
  for p in "${optional[@]}"; do
    if apt-cache show "$p" >/dev/null 2>&1; then
      echo "setup: installing $p (optional)"
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$p" ||
        echo "setup: could not install $p; the tests that need it will skip and say why" >&2
    else
      echo "setup: $p is not in this distribution's packages; the tests that need it will skip and say why" >&2
    fi
  done
fi

if [ ! -x /usr/local/cuda/bin/nvcc ] && [ -z "${CUDAToolkit_ROOT:-}" ]; then
  echo "setup: no CUDA toolkit at /usr/local/cuda; set CUDAToolkit_ROOT" >&2
  exit 2
fi

# The peers' headers (FlashInfer's RMSNorm, a baseline column of `ako run`) from PyPI; offline,
# the run goes on without that column and says why.
scripts/fetch-peers.sh || echo "setup: could not fetch the peers' headers; baselines that need them will say so" >&2

BUILD_DIR=${AKO_BUILD_DIR:-build}
# Under CI (CI set, as .ci/run does) every compiler warning is an error, so none comes back.
WERROR=${AKO_WERROR:-$([ -n "${CI:-}" ] && echo ON || echo OFF)}
# Debug info of the default RelWithDebInfo build: full (-g) for a user's build; line tables only
# (-g1: file:line in backtraces, no variables) under CI, where nobody attaches a debugger and -g
# made the compile about 45% slower (tests/cpu/task/layernorm_task_test.cpp: 19.2 against 13.4 s
# with g++ 12 -O2); the code generated is the same. AKO_DEBUG_INFO=full|lines overrides.
DEBUG_INFO=${AKO_DEBUG_INFO:-$([ -n "${CI:-}" ] && echo lines || echo full)}
case "$DEBUG_INFO" in
  full) G=-g ;;
  lines) G=-g1 ;;
  *) echo "setup: AKO_DEBUG_INFO must be full or lines, not '$DEBUG_INFO'" >&2; exit 2 ;;
esac
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${AKO_BUILD_TYPE:-RelWithDebInfo} -DAKO_WERROR="$WERROR" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 $G -DNDEBUG"
cmake --build "$BUILD_DIR" -j "$(nproc)"
echo "setup: built $BUILD_DIR/ako and $BUILD_DIR/ako-worker (no install needed: run $BUILD_DIR/ako, or put it on"
echo "       PATH: export PATH=\"$PWD/$BUILD_DIR:\$PATH\", or install it: cmake --install $BUILD_DIR --prefix ~/.local)"
