#include "search/split_evaluator.hpp"

#include <future>
#include <set>

#include <fmt/format.h>

namespace ako::search {

namespace {

struct SplitBatch : PreparedBatch {
  std::vector<std::pair<size_t, std::unique_ptr<PreparedBatch>>> parts;  // lane, its prepared share
  std::vector<EvalRequest> orphaned;   // shares whose lane was lost while preparing them
};

}  // namespace

std::vector<EvalRequest> unanswered(const std::vector<EvalRequest>& requests, const std::vector<DbRecord>& records) {
  std::set<std::string> answered;
  for (const auto& r : records) answered.insert(record_key(r.shape, r.params));
  std::vector<EvalRequest> out;
  for (const auto& req : requests) {
    EvalRequest left{req.params, {}};
    for (const auto* s : req.shapes)
      if (!answered.count(record_key(s->name, req.params))) left.shapes.push_back(s);
    if (!left.shapes.empty()) out.push_back(std::move(left));
  }
  return out;
}

SplitEvaluator::SplitEvaluator(std::vector<Evaluator*> lanes, std::vector<std::string> names)
    : lanes_(std::move(lanes)), names_(std::move(names)), lost_(lanes_.size(), false) {
  if (lanes_.empty() || names_.size() != lanes_.size()) throw Error("SplitEvaluator: one name per lane, at least one lane");
}

size_t SplitEvaluator::live_lanes() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (bool l : lost_) n += !l;
  return n;
}

std::vector<std::string> SplitEvaluator::notes() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return notes_;
}

void SplitEvaluator::lose(size_t lane, const std::string& why, size_t unfinished) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!lost_[lane])
    notes_.push_back(fmt::format("lane {} lost: {}; its {} unfinished (variant, shape) pairs went to the other lanes",
                                 names_[lane], why, unfinished));
  lost_[lane] = true;
}

std::vector<std::pair<size_t, std::vector<EvalRequest>>> SplitEvaluator::split(
    const std::vector<EvalRequest>& batch) const {
  std::vector<size_t> live;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < lanes_.size(); ++i)
      if (!lost_[i]) live.push_back(i);
  }
  std::vector<std::pair<size_t, std::vector<EvalRequest>>> shares;
  if (live.empty()) return shares;
  const size_t n = std::min(live.size(), batch.size());
  size_t begin = 0;
  for (size_t k = 0; k < n; ++k) {
    const size_t end = begin + (batch.size() - begin) / (n - k);
    shares.emplace_back(live[k], std::vector<EvalRequest>(batch.begin() + begin, batch.begin() + end));
    begin = end;
  }
  return shares;
}

std::vector<DbRecord> SplitEvaluator::evaluate(const std::vector<EvalRequest>& batch) { return measure(*prepare(batch)); }

std::unique_ptr<PreparedBatch> SplitEvaluator::prepare(std::vector<EvalRequest> batch) {
  auto out = std::make_unique<SplitBatch>();
  out->requests = batch;
  const auto shares = split(batch);
  if (shares.empty() && !batch.empty()) throw Error("every tuning lane was lost");
  std::vector<std::future<std::unique_ptr<PreparedBatch>>> futures;
  for (const auto& [lane, share] : shares)
    futures.push_back(std::async(std::launch::async, [this, l = lane, s = share] { return lanes_[l]->prepare(s); }));
  std::exception_ptr error;
  for (size_t k = 0; k < futures.size(); ++k) {
    try {
      out->parts.emplace_back(shares[k].first, futures[k].get());
    } catch (const LaneLost& e) {
      lose(shares[k].first, e.what(), shares[k].second.size());
      out->orphaned.insert(out->orphaned.end(), shares[k].second.begin(), shares[k].second.end());
    } catch (...) {
      if (!error) error = std::current_exception();  // after every future is collected
    }
  }
  if (error) std::rethrow_exception(error);
  return out;
}

std::vector<DbRecord> SplitEvaluator::measure(PreparedBatch& prepared) {
  auto& batch = dynamic_cast<SplitBatch&>(prepared);
  std::vector<EvalRequest> orphaned = std::move(batch.orphaned);
  // A share prepared for a lane lost since (while measuring the batch before) goes elsewhere.
  std::vector<std::pair<size_t, PreparedBatch*>> parts;
  for (auto& [lane, part] : batch.parts) {
    bool lost = false;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      lost = lost_[lane];
    }
    if (lost)
      orphaned.insert(orphaned.end(), part->requests.begin(), part->requests.end());
    else
      parts.emplace_back(lane, part.get());
  }
  std::vector<LaneWork> work;
  for (auto& [lane, part] : parts)
    work.push_back({lane, &part->requests,
                    std::async(std::launch::async, [this, l = lane, p = part] { return lanes_[l]->measure(*p); })});
  std::vector<DbRecord> out = gather(work, orphaned);
  if (!orphaned.empty())
    for (auto& r : rerun(std::move(orphaned))) out.push_back(std::move(r));
  return out;
}

std::vector<DbRecord> SplitEvaluator::rerun(std::vector<EvalRequest> requests) {
  std::vector<DbRecord> out;
  while (!requests.empty()) {
    for (const auto& r : requests) retried += r.shapes.size();
    const auto shares = split(requests);
    if (shares.empty()) {
      std::string why;
      for (const auto& n : notes()) why += "\n  " + n;
      throw Error("every tuning lane was lost:" + why);
    }
    std::vector<LaneWork> work;
    for (const auto& [lane, share] : shares)
      work.push_back({lane, &share,
                      std::async(std::launch::async, [this, l = lane, s = share] { return lanes_[l]->evaluate(s); })});
    std::vector<EvalRequest> left;
    for (auto& r : gather(work, left)) out.push_back(std::move(r));
    requests = std::move(left);
  }
  return out;
}

std::vector<DbRecord> SplitEvaluator::gather(std::vector<LaneWork>& work, std::vector<EvalRequest>& orphaned) {
  std::vector<DbRecord> out;
  std::exception_ptr error;
  for (LaneWork& w : work) {
    try {
      for (auto& r : w.records.get()) out.push_back(std::move(r));
    } catch (const LaneLost& e) {
      const auto left = unanswered(*w.requests, e.done);
      lose(w.lane, e.what(), left.size());
      out.insert(out.end(), e.done.begin(), e.done.end());
      orphaned.insert(orphaned.end(), left.begin(), left.end());
    } catch (...) {
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  return out;
}

}  // namespace ako::search
