// Loading and expanding a task spec: done on every ako command, so it must stay cheap.
#include <benchmark/benchmark.h>

#include "task/cases.hpp"
#include "task/spec.hpp"

namespace {

void BM_LoadTaskSpec(benchmark::State& state) {
  for (auto _ : state) {
    auto spec = ako::task::load_task(AKO_SOURCE_DIR, "rmsnorm");
    benchmark::DoNotOptimize(spec);
  }
}
BENCHMARK(BM_LoadTaskSpec)->Unit(benchmark::kMicrosecond);

void BM_ExpandCases(benchmark::State& state) {
  const auto spec = ako::task::load_task(AKO_SOURCE_DIR, "rmsnorm");
  for (auto _ : state) {
    auto cases = ako::task::expand_cases(spec, {}, {}, /*with_checks=*/true);
    benchmark::DoNotOptimize(cases);
  }
}
BENCHMARK(BM_ExpandCases)->Unit(benchmark::kMicrosecond);

}  // namespace
