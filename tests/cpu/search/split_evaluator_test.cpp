// Several lanes (GPUs, MPI ranks) as one evaluator, on the synthetic landscape: the search and
// its winners are what one lane finds, every (variant, shape) goes to exactly one lane, each
// lane gets a share, and a lane lost in the middle of a batch has its unfinished pairs taken
// over by the others (and gets nothing more).
#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "search/split_evaluator.hpp"
#include "search/tuner.hpp"
#include "search_fixture.hpp"

namespace ako::search {
namespace {

using namespace testing;

// Who evaluated what: (variant, shape) key -> lanes that evaluated it.
struct Ledger {
  std::mutex mutex;
  std::map<std::string, std::vector<int>> by_pair;
  std::map<int, size_t> per_lane;
  void add(int lane, const std::vector<DbRecord>& records) {
    const std::lock_guard<std::mutex> lock(mutex);
    for (const auto& r : records) {
      by_pair[record_key(r.shape, r.params)].push_back(lane);
      ++per_lane[lane];
    }
  }
};

// A replay lane that logs its records; `lose_at` > 0: its lose_at-th share finishes only its
// first half and throws LaneLost (a GPU or rank gone mid-batch).
class Lane : public ReplayEvaluator {
 public:
  Lane(int id, Ledger& ledger, int lose_at = 0)
      : ReplayEvaluator(landscape().file, synthetic_context()), id_(id), ledger_(ledger), lose_at_(lose_at) {}
  std::vector<DbRecord> evaluate(const std::vector<EvalRequest>& batch) override {
    ++shares;
    if (lose_at_ > 0 && shares == lose_at_) {
      const std::vector<EvalRequest> half(batch.begin(), batch.begin() + static_cast<long>(batch.size() / 2));
      std::vector<DbRecord> done = ReplayEvaluator::evaluate(half);
      ledger_.add(id_, done);
      throw LaneLost("lane " + std::to_string(id_) + " went away", std::move(done));
    }
    std::vector<DbRecord> out = ReplayEvaluator::evaluate(batch);
    ledger_.add(id_, out);
    return out;
  }
  int shares = 0;

 private:
  int id_;
  Ledger& ledger_;
  int lose_at_;
};

TuneOptions options(const std::string& strategy, size_t budget, size_t batch) {
  TuneOptions opt;
  opt.strategy.name = strategy;
  opt.strategy.seed = 3;
  opt.budget = budget;
  opt.batch = batch;
  return opt;
}

std::vector<const task::ShapeSpec*> some_shapes() {
  const auto& s = landscape().spec.shapes;
  return {&s[0], &s[1], &s[4], &s[6]};
}

void expect_same_winners(const TuneOutcome& a, const TuneOutcome& b) {
  ASSERT_EQ(a.classes.size(), b.classes.size());
  for (size_t i = 0; i < a.classes.size(); ++i) {
    EXPECT_EQ(a.classes[i].winner, b.classes[i].winner) << a.classes[i].cls.name;
    EXPECT_EQ(a.classes[i].evaluations, b.classes[i].evaluations) << a.classes[i].cls.name;
  }
}

TEST(SplitEvaluator, ThreeLanesFindWhatOneFindsAndShareTheWork) {
  for (const auto& [strategy, budget, batch] :
       {std::tuple<std::string, size_t, size_t>{"exhaustive", 0, 96}, {"evolve", 40, 12}, {"random", 30, 24}}) {
    SCOPED_TRACE(strategy);
    Landscape& l = landscape();
    Ledger single_ledger, ledger;
    Lane single(0, single_ledger);
    TuningDb db1("", synthetic_context());
    const TuneOutcome one = tune(l.spec, some_shapes(), ClassMode::config, options(strategy, budget, batch), single, db1);

    Lane a(0, ledger), b(1, ledger), c(2, ledger);
    SplitEvaluator split({&a, &b, &c}, {"a", "b", "c"});
    TuningDb db3("", synthetic_context());
    const TuneOutcome three = tune(l.spec, some_shapes(), ClassMode::config, options(strategy, budget, batch), split, db3);

    expect_same_winners(one, three);
    EXPECT_EQ(three.measured, one.measured);
    EXPECT_EQ(ledger.by_pair.size(), single_ledger.by_pair.size());  // every pair evaluated ...
    for (const auto& [key, lanes] : ledger.by_pair) EXPECT_EQ(lanes.size(), 1u) << key;  // ... once
    for (int lane : {0, 1, 2}) EXPECT_GT(ledger.per_lane[lane], 0u) << "lane " << lane << " got no share";
    EXPECT_EQ(split.live_lanes(), 3u);
    EXPECT_EQ(split.retried.load(), 0u);
  }
}

TEST(SplitEvaluator, ALaneLostMidBatchHasItsPairsRetriedByTheOthers) {
  Landscape& l = landscape();
  Ledger single_ledger, ledger;
  Lane single(0, single_ledger);
  TuningDb db1("", synthetic_context());
  const TuneOptions opt = options("exhaustive", 0, 60);
  const TuneOutcome one = tune(l.spec, some_shapes(), ClassMode::config, opt, single, db1);

  Lane a(0, ledger), b(1, ledger, /*lose_at=*/2), c(2, ledger);
  SplitEvaluator split({&a, &b, &c}, {"a", "b", "c"});
  TuningDb db3("", synthetic_context());
  const TuneOutcome three = tune(l.spec, some_shapes(), ClassMode::config, opt, split, db3);

  expect_same_winners(one, three);
  EXPECT_EQ(ledger.by_pair.size(), single_ledger.by_pair.size());
  for (const auto& [key, lanes] : ledger.by_pair) EXPECT_EQ(lanes.size(), 1u) << key;
  EXPECT_EQ(b.shares, 2);  // nothing more after it was lost
  EXPECT_GT(ledger.per_lane[1], 0u);  // what it finished before is kept
  EXPECT_EQ(split.live_lanes(), 2u);
  EXPECT_GT(split.retried.load(), 0u);
  ASSERT_EQ(split.notes().size(), 1u);
  EXPECT_NE(split.notes()[0].find("lane b lost: lane 1 went away"), std::string::npos) << split.notes()[0];
}

TEST(SplitEvaluator, EveryLaneLostIsAnError) {
  Landscape& l = landscape();
  Ledger ledger;
  Lane a(0, ledger, 1), b(1, ledger, 1);
  SplitEvaluator split({&a, &b}, {"a", "b"});
  TuningDb db("", synthetic_context());
  EXPECT_THROW(tune(l.spec, some_shapes(), ClassMode::config, options("exhaustive", 0, 40), split, db), Error);
}

TEST(SplitEvaluator, UnansweredListsThePairsWithoutARecord) {
  Landscape& l = landscape();
  const auto shapes = some_shapes();
  const Params p{{"BLOCK", 256}, {"CHUNKS", 1}, {"ROWS_PER_BLOCK", 1}, {"VEC", 8}};
  DbRecord r;
  r.shape = shapes[1]->name;
  r.params = p;
  const auto left = unanswered({{p, {shapes[0], shapes[1]}}}, {r});
  ASSERT_EQ(left.size(), 1u);
  ASSERT_EQ(left[0].shapes.size(), 1u);
  EXPECT_EQ(left[0].shapes[0], shapes[0]);
  EXPECT_TRUE(unanswered({{p, {shapes[1]}}}, {r}).empty());
  (void)l;
}

}  // namespace
}  // namespace ako::search
