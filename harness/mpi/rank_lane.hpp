#pragma once
// Rank 0's lane for another rank (one lane of search::SplitEvaluator): evaluate() sends the
// share and polls for the records. While a rank evaluates it sends a heartbeat every second
// (mpi_link.hpp's kBeat); a rank silent for longer than the timeout is taken for dead (a
// heartbeat timeout, not an MPI error handler: Open MPI 4 reports no peer's death to the
// others). Its share then throws search::LaneLost, the other lanes take it over, and the lane
// is never used again.
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mpi/mpi_link.hpp"
#include "search/split_evaluator.hpp"

namespace ako::mpi {

// What rank 0 knows of the other ranks after the search: which were lost, and how many variants
// they left uncompiled because --time ran out (nothing recorded: a resumed tune asks them again).
struct RankRoster {
  std::vector<bool> lost;   // by rank
  std::atomic<size_t> not_started{0};
  std::mutex mutex;                  // drift_notes: the lanes' threads add to it
  std::vector<std::string> drift_notes;   // the other ranks' slow windows, "rank N: ..."
  bool any_lost() const;
};

class RankLane : public search::Evaluator {
 public:
  // `time_left_s`: what is left of rank 0's --time (none: no --time), sent with every share so
  // that the rank stops starting compiles when rank 0's budget runs out, as rank 0's GPUs do.
  RankLane(MpiLink& link, int rank, double timeout_s, RankRoster& roster,
           std::function<std::optional<double>()> time_left_s = {});
  std::vector<search::DbRecord> evaluate(const std::vector<search::EvalRequest>& batch) override;

 private:
  MpiLink& link_;
  int rank_;
  double timeout_s_;
  RankRoster& roster_;
  std::function<std::optional<double>()> time_left_s_;
};

// Seconds of silence before a rank counts as dead: AKO_MPI_RANK_TIMEOUT, default 60.
double rank_timeout_s();

}  // namespace ako::mpi
