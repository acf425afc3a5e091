#pragma once
// What measures `ako tune`'s variants: the GPUs here (one lane per GPU of --gpus, split by
// search::SplitEvaluator when there are several), compile-only lanes (--compile-only), lanes on
// other MPI ranks (added by ako-mpi-tune), or a recorded database (--replay). Also the records'
// context, which says what the measurements are comparable with (search/TUNING_DB.md).
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands/tune_command.hpp"
#include "pipeline/tune_evaluator.hpp"
#include "search/split_evaluator.hpp"
#include "search/tuner.hpp"
#include "task/spec.hpp"

namespace ako::cli {

struct Measurer {
  search::DbContext ctx;
  search::Evaluator* evaluator = nullptr;   // what the tuner calls (see finish_lanes)
  std::unique_ptr<search::ReplayEvaluator> replay;
  std::vector<std::unique_ptr<pipeline::GpuEvaluator>> gpus;   // the lanes here: one per GPU (or the compile-only one)
  std::vector<std::unique_ptr<search::Evaluator>> remote;     // lanes elsewhere (MPI ranks)
  std::vector<std::string> lane_names;      // gpus then remote: a GPU's UUID, "rank N"
  std::unique_ptr<search::SplitEvaluator> split;               // set when there is more than one lane
  bool compile_only = false;
  std::string source_text;                  // the config document's "source"
  std::filesystem::path db_file;

  size_t lanes() const { return gpus.size() + remote.size(); }
  // The GPU lanes' counters, summed.
  size_t compiled() const, compile_errors() const, refused_static() const, validated() const, correct() const,
      timed() const, cases_run() const, references_timed() const, not_started() const, drift_windows() const,
      remeasured() const;
  std::vector<std::string> cache_notes() const;
  std::vector<std::string> drift_notes() const;   // every GPU lane's, in lane order
  // What the GPU lanes' drift sentinels and probes read (--json "sentinels"); null without a GPU lane.
  nlohmann::json sentinels_json() const;
};

// sha256 over the solution file and every header it reaches by quoted #include: the key
// that invalidates old tuning records when the kernel changes.
std::string source_hash(const std::filesystem::path& source);

Measurer replay_measurer(const TuneCommandOptions& opt, const task::TaskSpec& spec);

// The GPUs of --gpus here (nothing, after saying why, when there is no GPU; with --compile-only
// and no GPU, one compile-only lane for --arch, default sm_90a). `lanes_elsewhere`: other lanes
// (MPI ranks) will join, so even a single GPU here is a lane whose loss the others cover.
std::optional<Measurer> gpu_measurer(const TuneCommandOptions& opt, const task::TaskSpec& spec,
                                     const std::filesystem::path& root, bool lanes_elsewhere = false);

// After the lanes are in: one lane is called directly (exactly the one-GPU path), several
// through a SplitEvaluator.
void finish_lanes(Measurer& m);

}  // namespace ako::cli
