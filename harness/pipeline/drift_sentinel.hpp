#pragma once
// A tune times the reference once per case label, in the first batch that runs the label; every
// later variant is compared with that. A GPU that turns slower for a while afterwards would go
// unnoticed and move the ranking: on a shared two-H200 host, 2026-11-29, every kernel on one GPU
// took about 5.5 us longer for 20-60 s (a constant per launch, cause not found), and one class's
// winner of an exhaustive tune lost to a variant measured outside that window (bench/RESULTS.md).
//
// So in each segment of a batch's cases (in the order the worker runs them), one case, a
// sentinel, also times the reference beside its solution: the one whose label has the fastest
// recorded reference, where an added delay shows most. A segment with no recorded label (the
// first batch of a class, whose references are being timed for the first time) gets a probe at
// its end instead: a copy of the case measured so far whose label's recorded reference is the
// fastest (its cubin is in the kernel cache), run for its reading only. A sentinel more than the
// tolerance above the recorded time marks its segment and both neighbours as drifted, and their
// cases are measured again: a clean re-run replaces them; later tries wait first, as the GPU may
// still be slow; after the last try, what it measured stands and the note says so. A sentinel
// below the recording by more than the tolerance lowers the recording: the first timing was the
// slow one. That batch (the first to run the label) is recorded already and is not measured again;
// the note says so. With probes this is left to the tune's first batch, which has nothing to probe
// with.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ako::pipeline {

inline constexpr size_t kSentinelSegment = 32;     // cases per sentinel: about 1 s of a tune, 1-2% more time
inline constexpr double kDriftTolerance = 0.05;    // the reference's IQM repeats within 1-3% run to run
// Windows seen lasted up to about a minute, and the first re-measure follows the batch at once
// (it may still be inside): each later try first waits longer, 5 + 15 + 30 s at most per window.
inline constexpr int kMaxRemeasures = 4;
inline constexpr double kRemeasurePauseS[kMaxRemeasures] = {0, 5, 15, 30};

// `recorded_us[i]`: job case i's label's recorded reference time (none: not yet recorded, no
// sentinel there). The chosen job indices, at most one per segment of `segment` cases.
std::vector<size_t> choose_sentinels(const std::vector<std::optional<double>>& recorded_us, size_t segment);

struct SentinelReading {
  size_t index = 0;                    // the job case
  std::string label;
  double recorded_us = 0;
  std::optional<double> measured_us;   // none: the case was not timed (incorrect, skipped)
  bool drifted(double tolerance) const { return measured_us && *measured_us > recorded_us * (1 + tolerance); }
};

// Which of the job's `n` cases to measure again: around each sentinel that drifted, 2 * segment - 1
// cases before it and 2 * segment after, which hold its segment and both neighbours wherever it
// sits in its segment (a window starts and ends between sentinels).
std::vector<bool> drifted_cases(size_t n, const std::vector<SentinelReading>& readings, size_t segment,
                                double tolerance);

// What the sentinels read over a tune, for its --json summary: a window that none of them caught
// can then be told from sentinels that never ran (a probe that read nothing, none at all).
struct SentinelTally {
  size_t readings = 0;        // sentinels of recorded segments that timed their reference
  size_t probe_readings = 0;  // probes (a class's first batch) that did
  size_t probes_unread = 0;   // probes that came back without a reference time
  // The reading highest above its recording, over all of them.
  double highest_ratio = 0;
  std::string highest_label, highest_at;
  bool highest_probe = false;
  void add(const SentinelReading& r, bool probe, const std::string& at);
  // Another lane's tally into this one; true when its highest reading became this one's.
  bool merge(const SentinelTally& other);
};

// "the reference of 'LABEL' timed 8.92 us against 4.57 us recorded (1.95x)": the worst drifted reading.
std::string describe_worst_drift(const std::vector<SentinelReading>& readings, double tolerance);

}  // namespace ako::pipeline
