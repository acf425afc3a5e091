#pragma once
// What `ako tune` prints and writes: the class table (winner, score, speedup over the
// reference, against the current config), coverage, rejected points, the pipeline figures
// (how much compile time hid behind measuring), the shapes the tuning never saw with the
// class that serves them, and the JSON summary (schema ako.tune-summary/1).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/tuner.hpp"
#include "task/spec.hpp"

namespace ako::cli {

inline constexpr const char* kTuneSummarySchema = "ako.tune-summary/1";

// A shape of the task the tuning did not measure, and who serves it under `classes`.
struct UnseenShape {
  std::string shape;
  std::string cls;       // the class whose params it gets ("" none: first allowed values)
  std::string note;      // task::ClassChoice::note
};
std::vector<UnseenShape> unseen_shapes(const task::TaskSpec& spec, const std::vector<task::ConfigClass>& classes,
                                       const std::vector<const task::ShapeSpec*>& tuned);

// Geometric mean of the reference IQMs recorded with `params` over the class's shapes (of its own
// cases where it takes some of a shape's only); nullopt when one is unknown.
std::optional<double> class_reference_us(const search::TuningDb& db, const search::ShapeClass& cls,
                                         const search::Params& params);

void print_outcome(const search::TuneOutcome& o, const search::TuningDb& db);
void print_pipeline(const search::PipelineStats& p);
void print_unseen(const std::vector<UnseenShape>& unseen);

struct TuneRunInfo {
  std::string task, strategy, budget, db;
  uint64_t seed = 0;
  double wall_s = 0;
  std::optional<double> time_budget_s;
  bool replay = false;
  size_t remeasured_cases = 0;   // measured again after a drift sentinel caught a slow window
  std::vector<std::string> drift_notes;
  nlohmann::json sentinels;      // Measurer::sentinels_json(); null: no GPU measured (left out)
};
nlohmann::json summary_json(const TuneRunInfo& info, const search::TuneOutcome& o, const search::TuningDb& db,
                            const std::vector<UnseenShape>& unseen);

}  // namespace ako::cli
