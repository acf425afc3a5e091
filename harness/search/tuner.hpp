#pragma once
// The tuning loop, independent of how variants are measured: shape classes, the search per
// class through a Strategy, the database (resume: a (variant, shape) already recorded under
// the same context is never measured again), winner selection and the coverage table.
//
// Shape classes (decided here, documented in TUNING_DB.md): by default the solution's config
// classes, in file order, each case (shape x flags x axes) joining the first class whose `when`
// holds (the rule `ako run` uses to pick parameters, so a tuned class serves exactly the cases
// it was tuned on): a class whose `when` names a flag or an axis takes only those cases of a
// shape, and another class the rest. Shapes no class takes get a class of their own (cases of a
// shape that only some classes take: a class of their own after the config's). --classes shape
// gives every shape its own class. A class is tuned as one problem: its points are those valid
// on every one of its shapes, and a point's score is the geometric mean over its shapes of the
// sum of the IQMs of the class's cases there (the same ranking as the mean loss against each
// shape's own best). A variant is measured on all of a shape's cases once (one database record)
// and every class that takes some of them scores it from that record.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "search/space.hpp"
#include "search/strategy.hpp"
#include "search/tuning_db.hpp"
#include "task/spec.hpp"

namespace ako::search {

// Shape name -> the labels of the cases (in every dtype of the spec) a class takes there.
using CaseSets = std::map<std::string, std::set<std::string>>;

struct ShapeClass {
  std::string name;
  std::string when;                          // empty: every case (the last resort class)
  std::vector<const task::ShapeSpec*> shapes;  // the tuning set's shapes it takes (some or all cases)
  CaseSets only_cases;                       // shapes of which it takes some cases only (absent: all)
  Params current;                            // the config's params for it (defaults if new)
  bool from_config = false;                  // an existing config class
  // The shapes an earlier tune measured `current` on (the config's tuned_on). A written config
  // keeps them while this run leaves the params as they were: otherwise a per-shape tune would
  // strip every other class of its mark, and the run would hand those shapes to the nearest
  // tuned class (task/config.hpp) in place of their own.
  std::vector<task::ShapeSpec> tuned_before;
  // The config's "partial" mark of that earlier tune, kept with it on the same terms.
  std::optional<task::ConfigClass::Partial> partial_before;
};

enum class ClassMode { config, shape };

// Classes for `shapes` (a subset of spec.shapes, in spec order). Config classes that take no
// shape of the set are kept (untuned) so a written config still covers unseen shapes.
// `where` (`ako tune --where`, empty: every case): an expression over a case's dims, flags and
// axes, as a class's `when`; only the cases it holds for are scored. A class of a shape's own is
// then named shape-NAME-<where> and its `when` is the shape's dims && (where), so a written
// config puts it ahead of the classes that keep the shape's other cases. A shape's own `when`
// leaves out a dim that the entry point of some case it takes cannot see (task/entry_view.hpp:
// scale_shift's F where the modulation is not per frame, passed there as 1). Throws ako::Error when
// `where` fails to evaluate or holds for no case of the shapes.
std::vector<ShapeClass> make_classes(const task::TaskSpec& spec, const std::vector<const task::ShapeSpec*>& shapes,
                                     ClassMode mode, const std::string& where = "");

// One measurement request: a variant on some shapes.
struct EvalRequest {
  Params params;
  std::vector<const task::ShapeSpec*> shapes;
};

// A batch after the evaluator's first stage (e.g. compiled), ready to be measured.
// Evaluators keep their own state in a subclass.
struct PreparedBatch {
  virtual ~PreparedBatch() = default;
  std::vector<EvalRequest> requests;
};

// Measures requests; returns one record per (variant, shape) it could evaluate (any verdict).
// A GPU evaluator compiles and runs them; the replay evaluator looks them up in a file.
//
// Two stages, so that compiling one batch can hide behind measuring another: prepare()
// (compile) and measure() (validate and time). When concurrent() is true the tuner runs
// prepare() of the next batch on a helper thread while measure() of the current one runs on
// its own thread; prepare() must then not touch what measure() uses. Evaluators with one
// stage implement evaluate() only.
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual std::vector<DbRecord> evaluate(const std::vector<EvalRequest>& batch) = 0;
  virtual std::unique_ptr<PreparedBatch> prepare(std::vector<EvalRequest> batch);  // default: keeps the requests
  virtual std::vector<DbRecord> measure(PreparedBatch& batch) { return evaluate(batch.requests); }
  virtual bool concurrent() const { return false; }
};

struct TuneOptions {
  StrategyOptions strategy;
  size_t budget = 0;                         // variants per class; 0 = no limit
  double budget_fraction = 0;                // > 0: at most this fraction of a class's valid points (rounded up)
  size_t batch = 32;                         // variants per evaluation batch
  // Asked before every new batch: true stops the search cleanly (batches already started
  // finish and are recorded, so a rerun resumes from the database). E.g. --time.
  std::function<bool()> stop;
  // --compile-only: a "compiled" record (kCompiledVerdict) counts as done. Otherwise it does
  // not: a compile-only record is never taken for a measurement, the variant is measured.
  bool compile_only = false;
  // Seconds on a monotonic clock, for the ETA and the pipeline figures (tests inject one).
  std::function<double()> clock;
  std::string where;                         // make_classes' `where` (`ako tune --where`)
};

struct Progress {                            // for the live line, after every batch
  std::string cls;                           // the class of the batch just finished
  size_t asked = 0, usable = 0, valid = 0;   // this class: variants tried, usable, valid points
  size_t measured = 0, reused = 0;           // (variant, shape) pairs: measured now, from the DB
  std::optional<double> best_score;          // this class
  std::string best;
  size_t variants_done = 0;                  // all classes: variants whose scores are in
  size_t variants_planned = 0;               // ... and the most the budgets allow
  double elapsed_s = 0;
  std::optional<double> eta_s;               // see estimate_eta
};

// Seconds left at the measured rate (elapsed per variant done) for the variants still
// planned; nullopt before the first variant is done.
std::optional<double> estimate_eta(double elapsed_s, size_t done, size_t planned);

// How much compiling hid behind measuring: prepare_s is the time spent in prepare() (on
// the helper thread when concurrent), wait_s the time the tuner waited for a prepare() to
// finish before it could measure (all of it when not concurrent).
struct PipelineStats {
  size_t batches = 0;
  double prepare_s = 0, measure_s = 0, wait_s = 0;
  double hidden_s() const { return prepare_s > wait_s ? prepare_s - wait_s : 0; }
  double hidden_fraction() const { return prepare_s > 0 ? hidden_s() / prepare_s : 0; }
};

struct ClassOutcome {
  ShapeClass cls;
  Enumeration space;                         // valid points on every shape of the class
  size_t evaluations = 0;                    // variants the strategy asked for
  size_t usable = 0;                         // ... correct on every shape of the class
  size_t wrong = 0;                          // ... incorrect or failed on some shape
  size_t refused = 0;                        // ... of which refused by the static checks (never ran)
  std::optional<Params> winner;              // nullopt: untuned (no shapes, or nothing usable)
  double winner_score = 0;                   // geometric mean of IQMs, us
  int winner_registers = -1;
  std::string tie_note;                      // how the tie rule decided, when it did
  bool complete = true;                      // false: stopped (TuneOptions::stop) before its budget
  std::optional<double> current_score;       // the class's current params, when measured in this search
};

// An incomplete class's winner replaces the params it had only when this search measured both
// and the winner is faster by more than this fraction (two runs of one kernel agree within 1%).
inline constexpr double kPartialWinMargin = 0.01;

struct CoverageRow {
  std::string shape, cls;
  Params used;                               // the class winner
  double used_us = 0;                        // its IQM on this shape
  Params own_best;                           // best correct record of this shape
  double own_best_us = 0;
  double loss_pct = 0;                       // used / own_best - 1, in %
};

// Score of params over shapes from the database: the geometric mean of their IQMs (medians in records made before the IQM) when
// every shape has a correct record; `registers` gets the most over them. `wrong` is set when
// a record is incorrect or failed. With `only`, a shape it names counts the record's cases of
// those labels only (their IQMs summed; each must be there and correct).
std::optional<double> class_score(const TuningDb& db, const std::vector<const task::ShapeSpec*>& shapes,
                                  const Params& params, int* registers = nullptr, bool* wrong = nullptr,
                                  const CaseSets* only = nullptr);

// Each case's time (label -> IQM, µs) that the records of params give a class: every correct case
// of each shape's record, or with `only` the cases of the labels it names for that shape. Missing
// records and cases are left out (select_winner compares the cases both candidates have).
std::map<std::string, double> class_case_times(const TuningDb& db, const std::vector<const task::ShapeSpec*>& shapes,
                                               const Params& params, const CaseSets* only = nullptr);

// The time a record gives a class on its shape: the record's own (every case) when `labels` is
// null, else the sum of its cases of those labels; nullopt when one of those is missing or not
// correct (`wrong`: incorrect or failed) or there is none.
std::optional<double> record_time(const DbRecord& r, const std::set<std::string>* labels, bool* wrong = nullptr);

struct TuneOutcome {
  std::vector<ClassOutcome> classes;
  std::vector<CoverageRow> coverage;
  size_t measured = 0, reused = 0;           // (variant, shape) pairs
  bool stopped = false;                      // TuneOptions::stop ended the search early
  PipelineStats pipeline;
};

// Classes are searched together, one batch at a time, round robin: while one batch is
// measured the next (another class's) is asked for and prepared. A strategy that learns from
// scores is never asked while its previous batch is in flight, so each class sees exactly
// the ask/tell sequence it would see alone; strategies that ignore scores (exhaustive,
// random) may be asked early, which keeps the pipeline full when one class is left.
TuneOutcome tune(const task::TaskSpec& spec, const std::vector<const task::ShapeSpec*>& shapes, ClassMode mode,
                 const TuneOptions& opt, Evaluator& evaluator, TuningDb& db,
                 const std::function<void(const Progress&)>& on_progress = {});

// Coverage rows of the tuned classes: each shape, its class's winner, against the shape's
// own best correct record, in `shapes` order.
std::vector<CoverageRow> coverage(const std::vector<ClassOutcome>& classes, const TuningDb& db,
                                  const std::vector<const task::ShapeSpec*>& shapes);

// Winner among candidates (params with their score, registers and per-case times): the lowest
// score wins; a candidate within 1% of it (kTieRel) is a tie unless one of its cases runs more
// than 2% (kCaseTieRel) over the fastest candidate's time for that case: a class's score within
// 1% can hide one case 4% slower (ITERATIONS.md scale_shift iteration 10). Ties are broken by
// fewer registers (unknown counts as most), then by the simpler point: smaller values, compared
// param by param in name order.
struct Candidate {
  Params params;
  double score = 0;
  int registers = -1;
  std::map<std::string, double> case_us;  // class_case_times; cases one of two candidates lacks are not compared
};
std::optional<Candidate> select_winner(const std::vector<Candidate>& candidates, std::string* note = nullptr);
inline constexpr double kTieRel = 0.01;
inline constexpr double kCaseTieRel = 0.02;

// The replay evaluator: every (variant, shape) is looked up in a recorded database (its
// records under `context`); missing ones are simply not returned (not evaluable).
class ReplayEvaluator : public Evaluator {
 public:
  ReplayEvaluator(const std::filesystem::path& file, const DbContext& context);
  std::vector<DbRecord> evaluate(const std::vector<EvalRequest>& batch) override;
  size_t lookups = 0, misses = 0;

 private:
  TuningDb recorded_;
};

// The config document (schema ako.config/1) for the outcome: one class per shape class, in
// class order, the winner's params and the shapes it was tuned on (`tuned_on`); untuned and
// incomplete classes keep their params, unless their winner beat them in the same search by
// more than kPartialWinMargin; where the search measured the kept params, the class gets
// `tuned_on` and `partial` (variants evaluated, whether its params were kept, the winner's lead
// over them in %), so a time-bounded tune still ships what it measured; where it did not, no
// `tuned_on`. `source` as given; where classes keep their params without being searched here
// and the config they come from had a source (`previous_source`), it is carried on after the
// names of those classes, so a partial tune does not erase where they came from.
nlohmann::json config_document(const TuneOutcome& outcome, const std::string& source,
                               const std::string& previous_source = "");

}  // namespace ako::search
