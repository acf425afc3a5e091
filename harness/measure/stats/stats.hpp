#pragma once
// Statistics of timing samples and the rule that decides when to stop sampling.
//
// The centre reported is the interquartile mean (IQM): the mean of the samples between the
// 25th and 75th percentiles, i.e. the 25%-trimmed mean. Kernel times are skewed (a floor set
// by the hardware, a tail of interruptions) and on the H200 some kernels time in two modes a
// few percent apart, mixed sample by sample. The median of such a mixture sits in the valley
// between the modes, where the density is low, so its sampling variance 1/(4 n f(m)^2) is large:
// it needed 500-2010 samples to reach a 0.5% CI and two runs' medians differed by up to 2%
// (bench/RESULTS.md, "What decides the warm-run bar"; README, "Which time: the IQM"). The IQM
// averages the middle half, so it keeps the median's robustness to the tail (a quarter of the
// samples on either side can be anything) and converges like a mean: this rule, replayed on the
// same logged cases, stops in 83-100 samples, and its chunk-to-chunk spread is 0.28-0.56% where
// the median's was 0.86-1.29%. NVBench, Kernel Tuner and Triton report a mean.
//
// Its 95% confidence interval is Tukey and McLaughlin's: with g = floor(0.25 n) samples trimmed
// from each end and h = n - 2g kept, se = s_w / (0.5 sqrt(n)) where s_w is the sample standard
// deviation of the 25%-winsorized sample (each trimmed sample replaced by the nearest kept one),
// and the half-width is t(0.975, h - 1) * se. ci_rel is that half-width divided by the IQM.
//
// The median and its order-statistics CI are still computed and reported (median_us,
// median_ci_rel): results and gate entries written before the IQM are compared on them.
#include <optional>
#include <vector>

#include "exec/protocol/job.hpp"
#include "result/run_result.hpp"

namespace ako::measure {

// No stable stop below this many samples, whatever opt.min_samples says. The IQM's CI rests on
// an estimated spread (s_w), and a short run of close samples underestimates it: replayed on
// the H200's logged two-mode samples with the median's floor of 6, one kernel stopped at n = 12,
// on a spread the first few samples happened to show. With 20, each mode of a 50/50 mixture
// holds about 10 samples before any CI may stop, so both have shown up in the spread. (For the
// order-statistics CI of the median, 6 was the bare minimum: 1 - 2 * 0.5^n < 0.95 for n < 6.)
inline constexpr int kMinSamplesForCi = 20;

// Nor before the samples have had time to mix: at least kMixSamples samples, or kMixSeconds of
// sampling (at most half of opt.max_time_s, so a short budget such as the tuner's keeps its
// stable stops). Measured on the H200: with the floor of 20 alone, wan13b's two-mode kernels
// sometimes stopped at 20-36 samples that happened to sit 75-80% in one mode, a CI under 0.5%
// on a skewed mix, and their IQMs landed 1.2-1.3% from the next run's; every run that took 84
// samples or more held the modes near half and half. 64 samples make a 75/25 split of a 50/50
// mix a four-sigma event; 30 ms lets kernels whose samples are long (a round of 1.5 ms or
// more) stop at 20.
inline constexpr int kMixSamples = 64;
inline constexpr double kMixSeconds = 0.03;

// The CUPTI timer takes a case's samples in at least this many passes, one after the other,
// and reports the IQM of them all. Measured on the H200 (bench/RESULTS.md, "Sampling passes"):
// the wan13b kernels' two-mode mix holds for a whole pass and is drawn again at the next, so
// one pass's IQM, however many samples it has, can sit 1-2% from another pass's. Over runs of
// rmsnorm on three machines, the pairs of runs more than 1% apart went from 37 of 738 with one
// pass to 15 of 738 with two (widest 1.60% -> 1.27%); on one of the three, two passes did no
// better than one. The first pass stops on should_stop with `passes` = kSamplingPasses;
// each later one takes as many samples as the first did (later_pass_done), so the total costs
// about what one pass did (a warm `ako run task rmsnorm`: 2.7-2.95 s against 2.3-2.55 s).
inline constexpr int kSamplingPasses = 2;
// Passes whose IQMs disagree (passes_agree) get more passes, up to this many in all, while
// the case's time budget lasts.
inline constexpr int kMaxSamplingPasses = 4;

// The fraction trimmed from each end for the IQM.
inline constexpr double kIqmTrim = 0.25;

// t(0.975, df): the two-sided 95% quantile of Student's t with df >= 1 degrees of freedom
// (a table up to 30, the Cornish-Fisher expansion beyond: within 1e-4 there). Throws
// ako::Error for df < 1.
double t_quantile_975(int df);

// IQM and the half-width of its 95% CI (microseconds). half_width is infinite for a single
// sample (no spread to estimate).
struct IqmInterval {
  double iqm = 0, half_width = 0;
  int kept = 0;   // h = n - 2g, the samples averaged
};

// Interval of non-empty samples; the vector is reordered (partitioned by two selections, O(n)),
// not copied. Throws ako::Error on an empty vector.
IqmInterval iqm_interval(std::vector<double>& samples_us);

// Median's 95% confidence interval (microseconds), from order statistics: with n samples
// sorted ascending, the 1-based ranks n/2 - 1.96*sqrt(n)/2 (rounded down) and
// 1 + n/2 + 1.96*sqrt(n)/2 (rounded up), clamped to [1, n], bound the median with about 95%
// coverage (normal approximation of the binomial).
struct MedianInterval {
  double median = 0, low = 0, high = 0;
  double half_width() const { return (high - low) / 2; }
};

// Interval of non-empty samples; the vector is reordered (partially sorted), not copied.
// Throws ako::Error on an empty vector.
MedianInterval median_interval(std::vector<double>& samples_us);

// Fills samples, iqm_us and ci_rel (its CI), median_us and median_ci_rel, min_us, max_us,
// mean_us, stdev_us (sample stdev, n - 1). The caller sets method, cold_l2, warmup, stable and
// kernels_per_sample. An empty input gives all zeros. Throws ako::Error on a NaN or infinite
// sample (a broken measurement, never noise). A relative CI is 1 when it cannot be relative (a
// centre of 0 with samples that differ, or a single sample).
TimingStats summarize_samples(std::vector<double> samples_us);

struct StopDecision {
  bool stop = false;
  bool stable = false;   // stopped because the IQM is precise enough (not on a budget)
};

// The stopping rule, checked after every sample:
//   stable stop: n >= max(min_samples, kMinSamplesForCi), n >= kMixSamples or elapsed_s >=
//                min(kMixSeconds, max_time_s / 2), and the IQM's ci_rel < target_ci_rel;
//   budget stop: n >= max_samples or elapsed_s >= max_time_s (stable = false).
// The stable test wins when both hold. Cost is O(n) (selection, no full sort).
// With `passes` > 1 the rule of one pass of that many (the first): the CI target is
// target_ci_rel * sqrt(passes) (the pooled samples' CI then lands near the target), and the
// mixing floor, max_samples and max_time_s are divided by `passes`.
StopDecision should_stop(const std::vector<double>& samples_us, double elapsed_s,
                         const exec::TimingOptions& opt, int passes = 1);

// A later pass is done once it has as many samples as the first pass took (`first_n`), or on
// its share of the budget (max_samples / passes samples, max_time_s / passes seconds).
bool later_pass_done(int pass_n, int first_n, double pass_elapsed_s, const exec::TimingOptions& opt, int passes);

// Whether the passes' IQMs agree: the standard error of their mean, sd / sqrt(k) over the k
// pass IQMs, within target_ci_rel of the pooled IQM (for two passes: IQMs at most 2 x
// target_ci_rel apart). A check of the passes against each other, not a CI (with 2-4 passes a
// t quantile would be 3-13). One pass always agrees.
bool passes_agree(const std::vector<double>& pass_iqms_us, double pooled_iqm_us, double target_ci_rel);

// The untimed launches that open a later sampling pass, per kernel: one, plus as many as bring
// its launch count back in step with the others' modulo its cycle (SampleHooks::launch_cycle, measure/gpu/timer.hpp).
// `pass_samples`: the samples each kernel took in the pass before, all having started it with
// equal launch counts.
std::vector<int> launches_to_open_pass(const std::vector<int>& pass_samples, const std::vector<int>& cycles);

// A GPU that finished timing a case less than this long ago counts as busy (warm_up_ms).
// Between two cases the worker only validates the next one (2-50 ms on the H200).
inline constexpr double kBusyGapS = 0.1;

// The warm-up wall time (ms) of the next timed case: opt.warmup_ms, or 0 when the previous
// case's samples ended less than kBusyGapS ago (`since_last_s`; nullopt: none timed yet). The
// wall time exists to bring an idle GPU up; the warm-up launches (warmup_runs) run regardless
// and the clock is checked before the samples either way.
double warm_up_ms(const exec::TimingOptions& opt, std::optional<double> since_last_s);

// True when the two IQMs are indistinguishable at the measurement's own precision: their
// confidence intervals, rebuilt as IQM +- half-width with half-width = max(ci_rel, floor_rel) *
// IQM, overlap. floor_rel sets a minimum noise band for comparisons across runs (run-to-run
// drift, clocks, thermal state) that one run's CI cannot see; the gate uses it to demand a
// slowdown beyond, say, 1% before calling it real. Stats with no samples are never within noise
// of anything (there is no evidence that they agree).
bool within_noise(const TimingStats& a, const TimingStats& b, double floor_rel = 0.0);

}  // namespace ako::measure
