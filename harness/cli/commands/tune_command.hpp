#pragma once
// `ako tune task NAME`: search the solution's tunable parameters per shape class (see
// harness/search/), measuring variants on the GPU (compiled in parallel processes, validated
// and timed in the worker, in batches) or replaying a recorded tuning database without one.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/format/style.hpp"
#include "jit/compiler.hpp"

namespace ako::cli {

struct Measurer;  // cli/commands/tune_measurer.hpp

struct TuneCommandOptions {
  std::string task;
  std::filesystem::path root;
  std::string strategy = "evolve";
  std::string budget;                    // variants per class: "N", or "P%" of its valid points; empty: no limit
  size_t batch = 0;                      // variants per compile + measure batch; 0: 32 for evolve, else 128
  std::string time;                      // wall budget ("300", "300s", "5m", "1.5h"); empty: none
  std::filesystem::path json;            // summary (schema ako.tune-summary/1); empty: none
  std::vector<std::string> shapes;       // empty: all of the task's
  std::vector<std::string> dtypes;       // empty: all of the task's
  std::string classes = "config";        // config or shape
  std::string where;                     // score only the cases this expression holds for; empty: all
  std::filesystem::path db;              // default: <root>/bench/tuning/<task>.jsonl
  std::filesystem::path replay;          // replay a recorded database (no GPU)
  std::string device;                    // with --replay: the recorded device whose records to replay
                                         // (default: the last record's); with a GPU it must be the GPU's
  uint64_t seed = 1;
  bool write_config = false;             // writes the tuned device's configs/device_name=<device>.json
  std::string arch;
  bool hot = false;
  int trials = 0;                        // validation input sets per case; 0: 1 (ako run re-validates
                                         // the winners with the task's trials)
  double max_time_s = 0.01;              // timing budget per kernel and case
  double warmup_ms = 5;                  // warm-up wall time per case (its timed kernels together)
  double case_timeout_s = 60;
  int jobs = 0;
  bool no_cache = false;
  std::filesystem::path cache_dir;
  double compile_timeout_s = jit::kDefaultCompileTimeoutS;              // per variant; 0: none
  unsigned long long compile_memory = jit::kDefaultCompileMemoryBytes;  // per variant; 0: none
  std::optional<bool> progress;
  // --gpus: "" one GPU (device 0, as before), "all", "N" (the first N), "I,J,..." (by index);
  // one worker per GPU, the batches split over them (exec/client/gpu_selection.hpp).
  std::string gpus;
  // --compile-only: compile and statically check every variant, run nothing (records "compiled").
  bool compile_only = false;
  // Adds lanes beyond this host's GPUs before the search (ako-mpi-tune: the other ranks).
  std::function<void(Measurer&)> add_lanes;
};

// Returns the exit status (--compile-only: 0 every variant compiled and passed the static
// checks, 1 some did not): 0 every class with shapes has a winner; 1 some class found no
// correct variant; 2 usage, spec, build or environment error (e.g. no GPU and no --replay).
int tune_command(const TuneCommandOptions& opt);

}  // namespace ako::cli
