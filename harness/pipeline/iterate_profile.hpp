#pragma once
// `ako iterate --ncu`: which case to profile (the hottest correct one), which kernel launch
// (that case's exact solution instantiation, the validation launch skipped), and the ncu run
// of `ako run` on just that case with CUDA-event timing (no CUPTI in the profiled process).
#include <filesystem>
#include <string>

#include "pipeline/progress.hpp"
#include "profile/ncu_summary.hpp"
#include "result/run_result.hpp"

namespace ako::pipeline {

// What the profiled `ako run` is given besides the case: the arch and kernel cache of the iteration.
struct ProfileOptions {
  std::string arch;                     // empty: the GPU's
  std::filesystem::path cache_dir;      // empty: the default
};

struct ProfileRun {
  bool ok = false;
  std::string case_label;               // "hunyuan-720p bf16 weight"
  std::string message;                  // why there is no profile (ncu missing, failed, nothing to profile)
  profile::NcuSummary summary;
  std::filesystem::path report, csv;    // in `scratch`; iterate moves them into the trajectory
};

// The correct timed compare case with the largest solution IQM; nullptr when none.
const CaseResult* hottest_case(const RunResult& result);

ProfileRun profile_hottest_case(const std::filesystem::path& root, const RunResult& result,
                                const std::filesystem::path& scratch, const ProfileOptions& opt, ProgressSink& progress);

}  // namespace ako::pipeline
