#include "iterate/trajectory.hpp"

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/json_optional.hpp"
#include "git/commit.hpp"
#include "iterate/commit_message.hpp"

namespace ako::iterate {

const IterationRecord* TrajectorySummary::find(int iter) const {
  for (const auto& r : iterations)
    if (r.iter == iter) return &r;
  return nullptr;
}

int TrajectorySummary::next_iter() const {
  int n = 0;
  for (const auto& r : iterations) n = std::max(n, r.iter + 1);
  return n;
}

nlohmann::json to_json(const TrajectorySummary& s) {
  nlohmann::json its = nlohmann::json::array();
  for (const auto& r : s.iterations) {
    nlohmann::json it{{"iter", r.iter},
                      {"title", r.title},
                      {"status", r.status},
                      {"speedup_vs_baseline", opt(r.speedup_vs_baseline)},
                      {"runtime_us", opt(r.runtime_us)},
                      {"gain_vs_best_pct", opt(r.gain_vs_best_pct)},
                      {"hypothesis", r.hypothesis},
                      {"profiled", r.profiled}};
    // Absent rather than null when unknown, so that readers' value("commit", "") works.
    if (r.commit) it["commit"] = *r.commit;
    its.push_back(std::move(it));
  }
  return {{"task", s.task}, {"baseline", s.baseline}, {"best", s.best}, {"iterations", its}};
}

TrajectorySummary trajectory_summary_from_json(const nlohmann::json& j, const std::string& file) {
  try {
    TrajectorySummary s;
    s.task = j.at("task").get<std::string>();
    s.baseline = j.at("baseline").get<int>();
    s.best = j.at("best").get<int>();
    for (const auto& it : j.at("iterations")) {
      IterationRecord r;
      r.iter = it.at("iter").get<int>();
      r.title = it.value("title", "");
      r.status = it.value("status", "");
      r.speedup_vs_baseline = read_opt<double>(it, "speedup_vs_baseline");
      // "median_us" in summaries written before the IQM: the sum of the medians then.
      r.runtime_us = it.contains("runtime_us") ? read_opt<double>(it, "runtime_us") : read_opt<double>(it, "median_us");
      r.commit = read_opt<std::string>(it, "commit");
      r.gain_vs_best_pct = read_opt<double>(it, "gain_vs_best_pct");
      r.hypothesis = it.value("hypothesis", "");
      r.profiled = it.value("profiled", false);
      s.iterations.push_back(std::move(r));
    }
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw Error(file + ": not a trajectory summary (" + e.what() +
                "); it is written by ako iterate, restore it with: git checkout HEAD -- " + file);
  }
}

std::optional<TrajectorySummary> load_trajectory(const TrajectoryPaths& paths) {
  if (!std::filesystem::exists(paths.summary())) return std::nullopt;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(paths.summary()));
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(paths.summary().string() + ": not JSON (" + e.what() + "); restore it with: git checkout HEAD -- " +
                paths.rel_summary());
  }
  TrajectorySummary s = trajectory_summary_from_json(j, paths.summary().string());
  for (auto& r : s.iterations)
    if (!r.commit) r.commit = find_iteration_commit(paths.root, s.task, r.iter);
  return s;
}

std::optional<std::string> find_iteration_commit(const std::filesystem::path& root, const std::string& task, int iter) {
  return git::find_commit(root, [&](const std::string& message) {
    const CommitKeys k = parse_commit_keys(message);
    return k.task == task && k.iter == iter;
  });
}

}  // namespace ako::iterate
