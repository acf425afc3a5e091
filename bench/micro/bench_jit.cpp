// The jit stage's cost: an NVRTC compile with the cache off, a cache hit, and a batch of
// variants through the process pool. The kernel includes cuda_bf16.h and cuda_fp16.h.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "jit/compiler.hpp"

namespace fs = std::filesystem;
using namespace ako::jit;

namespace {

CompileRequest bf16_request(int block = 256) {
  CompileRequest r;
  r.source = fs::path(AKO_SOURCE_DIR) / "tests/cpu/jit/kernels/scale.cuh";
  r.display_name = "tests/cpu/jit/kernels/scale.cuh";
  r.name_expressions = {"scale_kernel<__nv_bfloat16, " + std::to_string(block) + ">",
                        "scale_kernel<__half, " + std::to_string(block) + ">"};
  return r;
}

// A fresh cache directory for one benchmark, removed afterwards.
struct BenchCacheDir {
  fs::path path;
  BenchCacheDir() {
    std::string pattern = (fs::temp_directory_path() / "ako-bench-jit-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path = pattern;
  }
  ~BenchCacheDir() { fs::remove_all(path); }
};

void BM_CompileCold(benchmark::State& state) {
  CompileOptions opt;
  opt.use_cache = false;
  for (auto _ : state) benchmark::DoNotOptimize(compile(bf16_request(), opt));
}
BENCHMARK(BM_CompileCold)->Unit(benchmark::kMillisecond)->Iterations(10);

void BM_CompileCacheHit(benchmark::State& state) {
  BenchCacheDir dir;
  CompileOptions opt;
  opt.cache_dir = dir.path;
  compile(bf16_request(), opt);  // fill the cache
  for (auto _ : state) {
    auto m = compile(bf16_request(), opt);
    if (!m.cache_hit) state.SkipWithError("expected a cache hit");
    benchmark::DoNotOptimize(m);
  }
}
BENCHMARK(BM_CompileCacheHit)->Unit(benchmark::kMicrosecond);

// N variants, cache off: forked workers, `jobs` = number of CPUs.
void BM_CompileAllCold(benchmark::State& state) {
  std::vector<CompileRequest> reqs;
  for (int i = 0; i < state.range(0); ++i) reqs.push_back(bf16_request(64 * (i + 1)));
  CompileOptions opt;
  opt.use_cache = false;
  for (auto _ : state) {
    auto batch = compile_all(reqs, opt);
    for (const auto& e : batch.errors)
      if (!e.empty()) state.SkipWithError(e.c_str());
  }
  state.counters["variants"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_CompileAllCold)->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond)->Iterations(3);

// The same N variants, all cached: what a warm `ako run` pays.
void BM_CompileAllCacheHit(benchmark::State& state) {
  BenchCacheDir dir;
  std::vector<CompileRequest> reqs;
  for (int i = 0; i < state.range(0); ++i) reqs.push_back(bf16_request(64 * (i + 1)));
  CompileOptions opt;
  opt.cache_dir = dir.path;
  compile_all(reqs, opt);
  for (auto _ : state) benchmark::DoNotOptimize(compile_all(reqs, opt));
}
BENCHMARK(BM_CompileAllCacheHit)->Arg(4)->Unit(benchmark::kMicrosecond);

}  // namespace
