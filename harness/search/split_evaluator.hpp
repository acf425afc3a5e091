#pragma once
// Several evaluators (lanes: one per GPU of a host, or one per MPI rank) as one. Every batch is
// split into one share per live lane; the lanes prepare (compile) their shares at the same
// time, each on a thread of its own, and measure them at the same time. Each (variant, shape)
// goes to exactly one lane, so nothing is measured twice, and the tuner above sees one batch
// and one set of records: the strategy, the database and the ETA stay as they are with one GPU.
//
// A lane whose GPU or rank is gone throws LaneLost with the records it finished: those are
// kept, the rest of its share goes to the live lanes (prepared and measured there), and the
// lost lane gets no more work. When no lane is left the batch fails (ako::Error).
#include <atomic>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "search/tuner.hpp"

namespace ako::search {

struct LaneLost : Error {
  LaneLost(const std::string& why, std::vector<DbRecord> finished) : Error(why), done(std::move(finished)) {}
  std::vector<DbRecord> done;   // records the lane completed before it was lost
};

class SplitEvaluator : public Evaluator {
 public:
  // `names` (one per lane, e.g. a GPU's UUID or "rank 2") appear in the lost-lane notes.
  SplitEvaluator(std::vector<Evaluator*> lanes, std::vector<std::string> names);

  std::vector<DbRecord> evaluate(const std::vector<EvalRequest>& batch) override;
  std::unique_ptr<PreparedBatch> prepare(std::vector<EvalRequest> batch) override;
  std::vector<DbRecord> measure(PreparedBatch& batch) override;
  // The lanes' prepare() must be safe beside their measure(): true of the default prepare()
  // (keeps the requests) and of GpuEvaluator's.
  bool concurrent() const override { return true; }

  size_t lanes() const { return lanes_.size(); }
  size_t live_lanes() const;
  // "lane NAME lost: WHY; its N unfinished (variant, shape) pairs went to the other lanes", each once.
  std::vector<std::string> notes() const;
  std::atomic<size_t> retried{0};  // (variant, shape) pairs re-sent after their lane was lost

 private:
  // Shares of `batch` for the live lanes: contiguous runs of variants, as even as can be.
  std::vector<std::pair<size_t, std::vector<EvalRequest>>> split(const std::vector<EvalRequest>& batch) const;
  void lose(size_t lane, const std::string& why, size_t unfinished);
  // Prepares and measures `requests` on the live lanes until every pair is answered or none is left.
  std::vector<DbRecord> rerun(std::vector<EvalRequest> requests);
  // One lane's records on their way, and the requests they answer.
  struct LaneWork {
    size_t lane;
    const std::vector<EvalRequest>* requests;
    std::future<std::vector<DbRecord>> records;
  };
  // Every lane's records: a lane lost meanwhile gives what it finished and is dropped, its
  // unanswered requests appended to `orphaned`; any other failure is rethrown once all are in.
  std::vector<DbRecord> gather(std::vector<LaneWork>& work, std::vector<EvalRequest>& orphaned);

  std::vector<Evaluator*> lanes_;
  std::vector<std::string> names_;
  mutable std::mutex mutex_;       // lost_ and notes_: prepare() runs on the tuner's helper thread
  std::vector<bool> lost_;
  std::vector<std::string> notes_;
};

// The requests of `requests` that `records` do not answer (by shape and params).
std::vector<EvalRequest> unanswered(const std::vector<EvalRequest>& requests, const std::vector<DbRecord>& records);

}  // namespace ako::search
