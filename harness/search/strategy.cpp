#include "search/strategy.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <set>

#include "common/error.hpp"
#include "task/json_field.hpp"

namespace ako::search {

namespace {

// Seeded permutation with our own Fisher-Yates (std::shuffle's use of the engine is
// implementation-defined; mt19937_64's output is not).
std::vector<size_t> permutation(size_t n, uint64_t seed) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(seed);
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  return order;
}

class OrderStrategy : public Strategy {
 public:
  explicit OrderStrategy(std::vector<size_t> order) : order_(std::move(order)) {}
  std::vector<size_t> ask(size_t max_n) override {
    std::vector<size_t> out;
    while (out.size() < max_n && next_ < order_.size()) out.push_back(order_[next_++]);
    return out;
  }
  void tell(size_t, std::optional<double>) override {}
  bool uses_scores() const override { return false; }

 private:
  std::vector<size_t> order_;
  size_t next_ = 0;
};

class EvolveStrategy : public Strategy {
 public:
  EvolveStrategy(const StrategyOptions& opt, const std::vector<Point>& valid, const std::vector<int>& radix)
      : opt_(opt), valid_(valid), radix_(radix), rng_(opt.seed), immigrants_(permutation(valid.size(), opt.seed)) {
    for (size_t i = 0; i < valid_.size(); ++i) index_of_[valid_[i]] = i;
  }

  std::vector<size_t> ask(size_t max_n) override {
    std::vector<size_t> out;
    auto take = [&](size_t i) {
      if (out.size() < max_n && !asked_.count(i)) {
        asked_.insert(i);
        out.push_back(i);
      }
    };
    for (size_t i : opt_.initial)
      if (i < valid_.size()) take(i);
    // Initial population: random points until enough have been tried.
    while (out.size() < max_n && asked_.size() < std::min(opt_.population, valid_.size())) take(next_immigrant());
    if (scored_.empty()) {
      // Nothing usable yet (all failed so far): keep sampling.
      while (out.size() < max_n && asked_.size() < valid_.size()) take(next_immigrant());
      return out;
    }
    const std::vector<size_t> elites = best(opt_.elites);
    // 1. Rings around the elites: untried points that differ in at most two params, nearest
    //    first (L1 distance in value steps), each ring over all elites, best elite first.
    //    Two params may move together, so coupled ones (threads and rows per block at a
    //    fixed ratio, chunks against threads) can cross between valid regions.
    std::vector<std::vector<std::pair<int, size_t>>> rings(elites.size());
    int max_d = 0;
    for (size_t e = 0; e < elites.size(); ++e) {
      const Point& c = valid_[elites[e]];
      for (size_t i = 0; i < valid_.size(); ++i) {
        if (asked_.count(i)) continue;
        int changed = 0, d = 0;
        for (size_t k = 0; k < c.size(); ++k) {
          const int delta = std::abs(valid_[i][k] - c[k]);
          changed += delta != 0;
          d += delta;
        }
        if (changed > 2) continue;
        rings[e].emplace_back(d, i);
        max_d = std::max(max_d, d);
      }
      std::sort(rings[e].begin(), rings[e].end());
    }
    std::vector<size_t> pos(elites.size(), 0);
    for (int d = 1; d <= max_d && out.size() < max_n; ++d)
      for (size_t e = 0; e < elites.size(); ++e)
        for (; pos[e] < rings[e].size() && rings[e][pos[e]].first == d; ++pos[e]) take(rings[e][pos[e]].second);
    // 2. Crossovers of elite pairs (each param from one parent, seeded).
    for (size_t a = 0; a < elites.size() && out.size() < max_n; ++a)
      for (size_t b = a + 1; b < elites.size() && out.size() < max_n; ++b)
        for (int tries = 0; tries < 4; ++tries) {
          Point child = valid_[elites[a]];
          for (size_t p = 0; p < child.size(); ++p)
            if (rng_() & 1) child[p] = valid_[elites[b]][p];
          auto it = index_of_.find(child);
          if (it != index_of_.end()) take(it->second);
        }
    // 3. Random immigrants (restart away from an exhausted optimum).
    while (out.size() < max_n && asked_.size() < valid_.size()) take(next_immigrant());
    return out;
  }

  void tell(size_t index, std::optional<double> score) override {
    if (score) scored_.emplace(*score, index);
  }

 private:
  size_t next_immigrant() {
    while (immigrant_ < immigrants_.size() && asked_.count(immigrants_[immigrant_])) ++immigrant_;
    return immigrant_ < immigrants_.size() ? immigrants_[immigrant_] : 0;
  }

  std::vector<size_t> best(size_t n) const {
    std::vector<size_t> out;
    for (const auto& [score, i] : scored_) {
      if (out.size() == n) break;
      out.push_back(i);
    }
    return out;
  }

  StrategyOptions opt_;
  const std::vector<Point>& valid_;
  std::vector<int> radix_;
  std::mt19937_64 rng_;
  std::map<Point, size_t> index_of_;
  std::set<size_t> asked_;
  std::multimap<double, size_t> scored_;
  std::vector<size_t> immigrants_;
  size_t immigrant_ = 0;
};

}  // namespace

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names{"exhaustive", "random", "evolve"};
  return names;
}

std::unique_ptr<Strategy> make_strategy(const StrategyOptions& opt, const std::vector<Point>& valid,
                                        const std::vector<int>& radix) {
  if (opt.name == "exhaustive") {
    std::vector<size_t> order(valid.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    return std::make_unique<OrderStrategy>(std::move(order));
  }
  if (opt.name == "random") return std::make_unique<OrderStrategy>(permutation(valid.size(), opt.seed));
  if (opt.name == "evolve") return std::make_unique<EvolveStrategy>(opt, valid, radix);
  throw Error("unknown strategy '" + opt.name + "'; expected one of " + task::join_names(strategy_names()));
}

}  // namespace ako::search
