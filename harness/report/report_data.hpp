#pragma once
// What `ako report` puts on the page, as plain values: built from the recorded files by
// load_inputs.cpp (run result, trajectory, ncu, tuning database), drawn by plots.cpp, laid out
// by html_page.cpp and markdown.cpp. Nothing here reads a file or knows about HTML.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profile/ncu_summary.hpp"
#include "result/run_result.hpp"
#include "validate/validate_result.hpp"

namespace ako::report {

// An input the report could not use: what it would have shown, the file, how to make it.
struct MissingInput {
  std::string what;   // "tuning landscape"
  std::string file;   // "bench/tuning/layernorm.jsonl"
  std::string how;    // "ako tune task layernorm (on a GPU machine)"
};

// Per case: bars of the reference, the solution and each baseline, in % of the device's copy
// bandwidth, faceted by dtype and variant (flags and axes).
struct BarGroup {
  std::string shape;
  std::vector<std::optional<double>> pct;  // one per series; nullopt: not timed or not correct
  std::vector<std::string> titles;         // hover text per series (µs, GB/s, verdict)
};
struct Facet {
  std::string dtype, variant;
  std::vector<BarGroup> groups;
};
struct CaseBars {
  std::vector<std::string> series;  // "reference", "solution", then the baselines' names
  std::vector<Facet> facets;
  double copy_bandwidth_gbs = 0;
};

// One row of the micro-benchmark table (report.md and the page).
struct BenchRow {
  std::string shape, dtype, variant, verdict;
  std::optional<double> reference_us, solution_us, speedup, pct_copy;
  std::vector<std::optional<double>> baseline_us, vs_baseline;  // per baseline name (BenchTable::baselines)
  std::vector<std::string> baseline_note;                        // why a baseline has no time
};
struct BaselineSummary {
  std::string name;
  int cases = 0;  // cases where both were timed and correct
  double geomean = 0, min = 0, max = 0;  // the solution's speedup over it
};
struct BenchTable {
  std::vector<std::string> baselines;
  std::vector<BenchRow> rows;
  std::vector<BaselineSummary> over_baselines;
  Summary summary;
  std::string centre = "IQM";   // what the times are: "median" for a run timed before the IQM
};

// The iteration history (trajectory/<task>/), with the AKO stall rule replayed over it.
struct HistoryPoint {
  int iter = 0;
  std::string title, status, hypothesis, commit;
  std::optional<double> total_us, speedup_vs_baseline, gain_vs_best_pct;
  int stall_run = 0;          // iterations in a row, up to and including this one, without a 3% gain
  bool stall_fired = false;   // the rule fired here: profile, re-read the log, change direction
  bool reset = false;         // a gain of at least 3% over the best ended a run of flat iterations
  bool profiled = false;
};
struct HottestCase {
  std::string label;                          // "hunyuan-720p bf16 affine"
  std::vector<std::optional<double>> iqm_us;     // per HistoryPoint; nullopt: not timed correctly
};
struct History {
  int baseline = 0, best = 0;
  std::vector<HistoryPoint> points;
  std::vector<HottestCase> hottest;
};

// The tuning landscape: every variant the database measured on every shape of a class.
struct LandscapeVariant {
  std::map<std::string, int64_t> params;
  double score_us = 0;  // geometric mean of its IQMs over the class's shapes (the tuner's score)
  int registers = -1;
};
struct ClassLandscape {
  std::string name, when;
  std::vector<std::string> shapes;
  std::vector<std::string> param_names;
  std::map<std::string, std::vector<int64_t>> param_values;  // the allowed values, spec order
  std::vector<LandscapeVariant> variants;                     // correct on every shape of the class
  std::map<std::string, int64_t> chosen;                      // the config's params for the class
  std::optional<double> chosen_score;                         // nullopt: the chosen point was not measured
  std::optional<LandscapeVariant> winner;  // the tuner's pick over these records (within 1%: fewer registers, simpler)
  size_t wrong = 0;       // ran and was incorrect or failed on some shape
  size_t refused = 0;     // refused by the static checks (never ran)
  size_t incomplete = 0;  // measured on some shapes of the class only
};
struct Landscape {
  std::string db_file, device, arch, source_hash, config_file, config_message;
  std::string centre = "IQM";  // what the records' times are: "median" in records made before the IQM
  size_t records = 0, other_context = 0;
  std::vector<ClassLandscape> classes;
};

// ncu before (the baseline iteration) and after (the best), from the trajectory.
struct NcuSide {
  int iter = 0;
  std::string case_label;  // the case iterate profiled (the hottest of that iteration's run)
  profile::NcuSummary summary;
};
struct NcuPair {
  std::optional<NcuSide> before, after;
};

// Where the numbers come from.
struct ReportMeta {
  std::string task;
  std::string device;        // "NVIDIA H200 (sm_90a, 132 SMs, driver 13000), copy bandwidth 4198 GB/s (measured)"
  std::string commit;        // the workspace's HEAD when the report was made
  std::string command;       // the `ako report` command line
  std::string generated_at;  // UTC
  std::string run_file, run_started_at, run_options, config;
};

struct ReportData {
  ReportMeta meta;
  std::optional<CaseBars> bars;
  std::optional<BenchTable> bench;
  std::optional<History> history;
  std::optional<Landscape> landscape;
  NcuPair ncu;
  // `ako validate` results given with --validate (model-level: does the win show in a DiT step)
  std::vector<std::pair<std::string, validate::ValidateResult>> models;  // file as given, result
  std::vector<MissingInput> missing;
};

}  // namespace ako::report
