#pragma once
// Rank 0's lane for another rank (one lane of search::SplitEvaluator): evaluate() sends the
// share and polls for the records. While a rank evaluates it sends a heartbeat every second
// (mpi_link.hpp's kBeat); a rank silent for longer than the timeout is taken for dead (a
// heartbeat timeout, not an MPI error handler: Open MPI 4 reports no peer's death to the
// others). Its share then throws search::LaneLost, the other lanes take it over, and the lane
// is never used again.
#include <string>
#include <vector>

#include "mpi/mpi_link.hpp"
#include "search/split_evaluator.hpp"

namespace ako::mpi {

// What rank 0 knows of the other ranks after the search: which were lost.
struct RankRoster {
  std::vector<bool> lost;   // by rank
  bool any_lost() const;
};

class RankLane : public search::Evaluator {
 public:
  RankLane(MpiLink& link, int rank, double timeout_s, RankRoster& roster);
  std::vector<search::DbRecord> evaluate(const std::vector<search::EvalRequest>& batch) override;

 private:
  MpiLink& link_;
  int rank_;
  double timeout_s_;
  RankRoster& roster_;
};

// Seconds of silence before a rank counts as dead: AKO_MPI_RANK_TIMEOUT, default 60.
double rank_timeout_s();

}  // namespace ako::mpi
