# Sourced by scripts/gpu-tests.sh and scripts/warm-gpu-test-cache.sh: the kernel cache's folder
# for the GPU suite, the same on the build machine (where the warm run fills it) and on the GPU
# machine (where the suite reads it), since the keys of ako's support kernels name it; and how
# both count the entries of a cache folder (one .cubin each).
GPU_TESTS_CACHE=/tmp/ako-gpu-tests-cache
cache_entries() { find "$1" -name '*.cubin' 2>/dev/null | wc -l; }
