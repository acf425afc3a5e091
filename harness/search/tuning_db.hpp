#pragma once
// The tuning database: JSON lines, one record per (variant, shape), format in TUNING_DB.md.
// Records are only comparable under the same context (task, kernel source hash, device,
// driver, NVRTC, arch, L2 mode, dtypes); records of any other context are kept in the file
// but ignored, so a changed solution source invalidates its old measurements without
// deleting anything. Appends are one write(2) of one line on an O_APPEND descriptor under an
// exclusive flock(2), so concurrent `ako tune` runs sharing the file never interleave or lose a
// line; a writer killed inside its write(2) leaves at most one torn last line, which loading
// skips and the next append (or repair_interrupted_append) cuts off before writing.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/space.hpp"

namespace ako::search {

inline constexpr const char* kTuneRecordSchema = "ako.tune/1";
inline constexpr const char* kCentreIqm = "iqm";        // DbContext::centre of records made now
inline constexpr const char* kCentreMedian = "median";  // ... of records made before the IQM

// What makes two measurements comparable.
struct DbContext {
  std::string task;
  std::string source_hash;     // sha256 of the solution file and its quoted includes
  std::string device;          // device name
  int driver = 0;              // cuDriverGetVersion
  std::string nvrtc;           // NVRTC version string
  std::string arch;            // sm_90a
  std::string l2 = "cold";     // "cold" or "hot"
  std::vector<std::string> dtypes;  // the dtypes each record's cases ran in
  // The static checks the task permitted (solution.allow, sorted) when the variants were
  // checked; nullopt on records made before `ako tune` applied the static checks. Part of the
  // context because a refusal (or a measurement) is only valid under the allow list it was
  // made with: a variant measured before it had to pass the checks must not be reused.
  std::optional<std::vector<std::string>> allow;
  // The timing centre of every time in the records: "iqm" (what `ako tune` measures now) or
  // "median" (records made before the IQM, which have no "centre" field). A median and an IQM
  // of the same kernel differ, so records of the other centre are another context.
  std::string centre = kCentreMedian;
  bool operator==(const DbContext&) const = default;
  std::string key() const;     // canonical text of every field
};

struct DbCase {
  std::string label;           // "flux1-single bf16 weight"
  std::string verdict;         // correct, incorrect, failed, skipped
  double time_us = 0;         // the solution's centre (IQM; median in an old context), JSON "iqm_us" / "median_us"
  double ci_rel = 0;
  double reference_us = 0;     // the reference's centre for this case label, timed once per tune run; 0 unknown
};

// The reason of a variant the static checks on its compiled code refused (it never ran):
// "static check: local_memory spilly<float, 128>: uses a 512 byte stack frame ...".
inline constexpr const char* kStaticCheckReason = "static check: ";
// The verdict of a record made by `ako tune --compile-only`: the variant compiled and passed the
// static checks, and was never run: no time, never a score, never a winner.
inline constexpr const char* kCompiledVerdict = "compiled";

struct DbRecord {
  DbContext context;
  std::string shape;
  Params params;
  std::string verdict = "correct";  // worst over the cases: failed > incorrect > skipped > correct
  std::string reason;          // why not correct
  double time_us = 0;          // sum of the cases' solution centres (every dtype x flag), JSON "iqm_us" / "median_us"
  double ci_rel = 0;           // largest case ci_rel
  int registers = -1;          // most registers per thread over the variant's instantiations
  double reference_us = 0;     // sum of the cases' reference centres (0: not all known)
  std::vector<DbCase> cases;
  std::string recorded_at;     // ISO 8601 UTC
  // The UUID of the GPU that measured it ("GPU-8f3a…"; with --compile-only, of the GPU its
  // worker stood for); empty on records made before ako tune tagged them. Not part of the
  // context: GPUs of one model share a context (a --gpus set never mixes models).
  std::string gpu_uuid;
  bool correct() const { return verdict == "correct" && time_us > 0; }
  bool compile_only() const { return verdict == kCompiledVerdict; }
  bool refused_by_static_checks() const { return verdict == "failed" && reason.rfind(kStaticCheckReason, 0) == 0; }
  // Its compile was killed at the time or memory limit (jit::compile_fault): a verdict about the
  // machine's load as much as the variant, so a resumed tune measures it again.
  bool killed_at_compile_limits() const {
    return verdict == "failed" &&
           (reason.rfind("compile_timeout: ", 0) == 0 || reason.rfind("compile_out_of_memory: ", 0) == 0);
  }
};

nlohmann::json to_json(const DbRecord& r);
DbRecord record_from_json(const nlohmann::json& j);  // throws ako::Error on a malformed record

class TuningDb {
 public:
  // Empty path: in memory only. Loads the file when it exists (torn or foreign lines are
  // counted, never fatal); `context` selects the usable records.
  TuningDb(std::filesystem::path file, DbContext context);

  // The context of the file's last well-formed record of `task` (for --replay), nullopt when
  // none; with `device`, the last one measured on that device (spelled with spaces or `_`).
  static std::optional<DbContext> last_context(const std::filesystem::path& file, const std::string& task,
                                               const std::string& device = "");
  // The devices the file's records of `task` were measured on, in order of first appearance.
  static std::vector<std::string> recorded_devices(const std::filesystem::path& file, const std::string& task);

  const DbContext& context() const { return context_; }
  const DbRecord* find(const std::string& shape, const Params& params) const;
  // Appends to the file (one line, one write, under the file's lock) and to memory. A record
  // for a key already present replaces it in memory only (the file keeps history; loading
  // keeps the last). Throws ako::Error when the line cannot be written whole (nothing of it
  // stays in the file).
  void append(DbRecord r);
  // Completes or cuts off a last line without its newline (a writer killed mid-write); says
  // what it did, nullopt when there was nothing to do (or no file).
  static std::optional<std::string> repair_interrupted_append(const std::filesystem::path& file);
  std::vector<const DbRecord*> records_for_shape(const std::string& shape) const;
  size_t size() const { return records_.size(); }

  int skipped_lines = 0;        // unparsable (e.g. a torn last line)
  int other_context = 0;        // well-formed records of another context (ignored)
  int other_source = 0;         // ... of which: same context but another source hash
  int other_centre = 0;         // ... of which: same context but timed with another centre (medians)

 private:
  std::filesystem::path file_;
  DbContext context_;
  std::map<std::string, DbRecord> records_;  // by shape + params
};

std::string record_key(const std::string& shape, const Params& params);

}  // namespace ako::search
