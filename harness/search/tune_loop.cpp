// tune() (declared in tuner.hpp): the search driver. Every class with shapes gets its own
// strategy; batches are asked for round robin over the classes and pass through the
// evaluator's two stages as a pipeline of depth two:
//
//   ask k, prepare k | ask k+1, prepare k+1 (helper thread) while measure k | tell k | ...
//
// Batch k+1 comes from another class than batch k unless k's strategy ignores scores, so
// a learning strategy always has its previous batch's scores before it is asked again.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>

#include "search/tuner.hpp"

namespace ako::search {

namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct ClassSearch {
  ClassOutcome co;
  std::unique_ptr<Strategy> strategy;
  size_t budget = 0;
  bool finished = true;       // budget reached or nothing left to ask (or no shapes)
  int in_flight = 0;          // batches asked whose scores are not in yet
  std::vector<Candidate> candidates;
  std::optional<double> best;
  std::string best_text;
};

struct Prepared {
  std::unique_ptr<PreparedBatch> batch;
  double seconds = 0;
};

struct Batch {
  size_t cls = 0;
  std::vector<size_t> points;                // indices into the class's valid points
  std::vector<EvalRequest> requests;         // the (variant, shape) pairs the database lacks
  std::future<Prepared> prepared;            // valid when requests is not empty
};

class Driver {
 public:
  Driver(const task::TaskSpec& spec, const std::vector<const task::ShapeSpec*>& shapes, ClassMode mode,
         const TuneOptions& opt, Evaluator& evaluator, TuningDb& db,
         const std::function<void(const Progress&)>& on_progress)
      : space_(spec), shapes_(shapes), opt_(opt), evaluator_(evaluator), db_(db), on_progress_(on_progress) {
    clock_ = opt.clock ? opt.clock : steady_seconds;
    std::vector<int> radix;
    for (const auto& p : space_.params()) radix.push_back(static_cast<int>(p.values.size()));
    std::vector<ShapeClass> classes = make_classes(spec, shapes, mode, opt.where);
    classes_.reserve(classes.size());  // a strategy keeps a reference to its class's valid points
    for (ShapeClass& cls : classes) {
      ClassSearch& cs = classes_.emplace_back();
      cs.co.cls = cls;
      if (!cls.shapes.empty()) {
        cs.co.space = enumerate(space_, cls.shapes);
        const auto& valid = cs.co.space.valid;
        StrategyOptions so = opt.strategy;
        if (auto cur = space_.point_of(cls.current)) {
          auto it = std::find(valid.begin(), valid.end(), *cur);
          if (it != valid.end()) so.initial.insert(so.initial.begin(), static_cast<size_t>(it - valid.begin()));
        }
        cs.strategy = make_strategy(so, valid, radix);
        cs.budget = opt.budget ? std::min(opt.budget, valid.size()) : valid.size();
        if (opt.budget_fraction > 0)
          cs.budget = std::min(
              cs.budget, static_cast<size_t>(std::ceil(opt.budget_fraction * static_cast<double>(valid.size()))));
        cs.finished = cs.budget == 0;
      }
    }
  }

  TuneOutcome run() {
    start_ = clock_();
    std::optional<Batch> current = next_batch();
    while (current) {
      Prepared prepared = wait(*current);
      std::optional<Batch> next = next_batch();  // compiles while `current` is measured
      finish(*current, prepared);
      current = next ? std::move(next) : next_batch();
    }
    for (ClassSearch& cs : classes_) {
      if (auto w = select_winner(cs.candidates, &cs.co.tie_note)) {
        cs.co.winner = w->params;
        cs.co.winner_score = w->score;
        cs.co.winner_registers = w->registers;
      }
      cs.co.complete = cs.finished;
      cs.co.current_score = class_score(db_, cs.co.cls.shapes, cs.co.cls.current, nullptr, nullptr,
                                          &cs.co.cls.only_cases);
      out_.classes.push_back(std::move(cs.co));
    }
    out_.coverage = coverage(out_.classes, db_, shapes_);
    return std::move(out_);
  }

 private:
  // The next class in round robin that may be asked now; its batch, already being prepared.
  // nullopt: nothing can be asked now (every class finished, a learning class waits for
  // its scores, or the stop condition holds).
  std::optional<Batch> next_batch() {
    for (size_t k = 0; k < classes_.size(); ++k) {
      const size_t i = (next_class_ + k) % classes_.size();
      ClassSearch& cs = classes_[i];
      if (cs.finished || (cs.in_flight > 0 && cs.strategy->uses_scores())) continue;
      if (opt_.stop && opt_.stop()) {
        out_.stopped = true;
        return std::nullopt;
      }
      const std::vector<size_t> points = cs.strategy->ask(std::min(opt_.batch, cs.budget - cs.co.evaluations));
      cs.co.evaluations += points.size();
      if (points.empty() || cs.co.evaluations >= cs.budget) cs.finished = true;
      if (points.empty()) continue;
      next_class_ = i + 1;
      ++cs.in_flight;
      Batch b;
      b.cls = i;
      b.points = points;
      // Resume: only the (variant, shape) pairs the database lacks are measured, and those whose
      // compile was killed at the limits (a loaded machine's verdict; the new record replaces it),
      // and, unless this is a compile-only run, those a compile-only run recorded (never timed).
      for (size_t p : points) {
        EvalRequest req{space_.params_of(cs.co.space.valid[p]), {}};
        for (const auto* s : cs.co.cls.shapes) {
          const DbRecord* known = db_.find(s->name, req.params);
          if (known && !known->killed_at_compile_limits() && (opt_.compile_only || !known->compile_only())) {
            ++out_.reused;
            ++reused_;
          } else {
            req.shapes.push_back(s);
          }
        }
        if (!req.shapes.empty()) b.requests.push_back(std::move(req));
      }
      if (!b.requests.empty()) {
        // Deferred (run by wait() on this thread) unless the evaluator can prepare alongside a measure.
        const auto policy = evaluator_.concurrent() ? std::launch::async : std::launch::deferred;
        b.prepared = std::async(policy, [this, reqs = b.requests] {
          const double t = clock_();
          Prepared p{evaluator_.prepare(reqs), 0};
          p.seconds = clock_() - t;
          return p;
        });
      }
      return b;
    }
    return std::nullopt;
  }

  Prepared wait(Batch& b) {
    if (!b.prepared.valid()) return {};
    const double t = clock_();
    Prepared p = b.prepared.get();
    out_.pipeline.wait_s += clock_() - t;
    out_.pipeline.prepare_s += p.seconds;
    return p;
  }

  void finish(Batch& b, Prepared& prepared) {
    ClassSearch& cs = classes_[b.cls];
    if (prepared.batch) {
      const double t = clock_();
      std::vector<DbRecord> records = evaluator_.measure(*prepared.batch);
      out_.pipeline.measure_s += clock_() - t;
      ++out_.pipeline.batches;
      for (DbRecord& r : records) {
        ++out_.measured;
        ++measured_;
        db_.append(std::move(r));
      }
    }
    for (size_t i : b.points) {
      const Params p = space_.params_of(cs.co.space.valid[i]);
      int regs = -1;
      bool wrong = false;
      const auto score = class_score(db_, cs.co.cls.shapes, p, &regs, &wrong, &cs.co.cls.only_cases);
      cs.strategy->tell(i, score);
      if (wrong) ++cs.co.wrong;
      if (refused_on_some_shape(cs.co.cls.shapes, p)) ++cs.co.refused;
      if (!score) continue;
      ++cs.co.usable;
      cs.candidates.push_back({p, *score, regs, class_case_times(db_, cs.co.cls.shapes, p, &cs.co.cls.only_cases)});
      if (!cs.best || *score < *cs.best) {
        cs.best = score;
        cs.best_text = params_text(p);
      }
    }
    --cs.in_flight;
    done_ += b.points.size();
    if (on_progress_) on_progress_(progress(cs));
  }

  bool refused_on_some_shape(const std::vector<const task::ShapeSpec*>& shapes, const Params& p) const {
    for (const auto* s : shapes)
      if (const DbRecord* r = db_.find(s->name, p); r && r->refused_by_static_checks()) return true;
    return false;
  }

  Progress progress(const ClassSearch& cs) const {
    Progress p;
    p.cls = cs.co.cls.name;
    p.asked = cs.co.evaluations;
    p.usable = cs.co.usable;
    p.valid = cs.co.space.valid.size();
    p.measured = measured_;
    p.reused = reused_;
    p.best_score = cs.best;
    p.best = cs.best_text;
    p.variants_done = done_;
    // A finished class plans what it asked (a strategy may run out before its budget).
    for (const auto& c : classes_) p.variants_planned += c.finished ? c.co.evaluations : c.budget;
    p.elapsed_s = clock_() - start_;
    p.eta_s = estimate_eta(p.elapsed_s, p.variants_done, p.variants_planned);
    return p;
  }

  const Space space_;
  const std::vector<const task::ShapeSpec*>& shapes_;
  const TuneOptions& opt_;
  Evaluator& evaluator_;
  TuningDb& db_;
  const std::function<void(const Progress&)>& on_progress_;
  std::function<double()> clock_;
  std::vector<ClassSearch> classes_;
  size_t next_class_ = 0;
  size_t measured_ = 0, reused_ = 0, done_ = 0;
  double start_ = 0;
  TuneOutcome out_;
};

}  // namespace

std::optional<double> estimate_eta(double elapsed_s, size_t done, size_t planned) {
  if (done == 0) return std::nullopt;
  if (done >= planned) return 0.0;
  return elapsed_s / static_cast<double>(done) * static_cast<double>(planned - done);
}

TuneOutcome tune(const task::TaskSpec& spec, const std::vector<const task::ShapeSpec*>& shapes, ClassMode mode,
                 const TuneOptions& opt, Evaluator& evaluator, TuningDb& db,
                 const std::function<void(const Progress&)>& on_progress) {
  return Driver(spec, shapes, mode, opt, evaluator, db, on_progress).run();
}

}  // namespace ako::search
