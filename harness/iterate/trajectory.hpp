#pragma once
// trajectory/<task>/: what every iteration benched (harness/iterate/TRAJECTORY.md). `ako port`
// and `ako best` read it; `ako iterate` is its only writer.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ako::iterate {

struct IterationRecord {
  int iter = 0;
  std::string title;
  std::string status;                     // status_name()
  std::optional<double> speedup_vs_baseline;  // baseline total / this total over common cases; null: not measured
  std::optional<double> runtime_us;       // sum of the solution's IQMs over the correct timed cases
  std::optional<std::string> commit;      // absent only for the newest: a commit cannot name itself
  std::optional<double> gain_vs_best_pct; // over the best before it (stall rule); null for the baseline
  std::string hypothesis;
  bool profiled = false;                  // ncu.json in its folder
};

struct TrajectorySummary {
  std::string task;
  int baseline = 0;
  int best = 0;
  std::vector<IterationRecord> iterations;
  const IterationRecord* find(int iter) const;
  int next_iter() const;  // 0 when empty
};

nlohmann::json to_json(const TrajectorySummary& s);
// Throws ako::Error naming `file` when a field is missing or has the wrong type.
TrajectorySummary trajectory_summary_from_json(const nlohmann::json& j, const std::string& file);

// Paths, relative to the repository root where noted.
struct TrajectoryPaths {
  std::filesystem::path root;
  std::string task;
  std::string rel_dir() const { return "trajectory/" + task; }
  std::string rel_iter(int n) const { return rel_dir() + "/iter-" + std::to_string(n); }
  std::string rel_summary() const { return rel_dir() + "/summary.json"; }
  std::string rel_solution() const { return "solution/" + task; }
  std::filesystem::path dir() const { return root / rel_dir(); }
  std::filesystem::path iter_dir(int n) const { return root / rel_iter(n); }
  std::filesystem::path summary() const { return root / rel_summary(); }
};

// The summary, or nullopt when the task has no trajectory yet. The newest iteration's null
// commit is filled in from the history (the commit whose body says task and iter).
std::optional<TrajectorySummary> load_trajectory(const TrajectoryPaths& paths);

// The commit of iteration `iter` of `task`: the newest commit from HEAD whose body carries
// "task: <task>" and "iter: <iter>" (see commit_message.hpp).
std::optional<std::string> find_iteration_commit(const std::filesystem::path& root, const std::string& task, int iter);

}  // namespace ako::iterate
