#pragma once
// The result of `ako validate` (schema ako.validate/1), as bench/validate/__main__.py writes it:
// one model's block stack run on the torch, engine and ako backends, eager and under CUDA
// graphs; what ako prints and `ako report` shows is read from here. The verdicts are the
// Python side's (bench/validate/verdict.py); this reader only checks they are consistent
// (a "pass" with a failing family is refused as malformed).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ako::validate {

inline constexpr const char* kSchema = "ako.validate/1";

struct ModeTimes {
  std::string mode;                      // eager, graph
  double step_ms = 0;                    // median step latency
  double min_ms = 0, max_ms = 0;
  double total_us = 0;                   // GPU kernel time of a step (profiler)
  double family_us = 0;                  // of which in ako's families
  std::map<std::string, double> families;
};

struct BackendResult {
  std::string name;                      // torch, engine, ako
  std::vector<ModeTimes> modes;
  std::optional<double> rel_l2, max_abs; // output vs torch (absent for torch)
  const ModeTimes* mode(const std::string& m) const;
};

struct SiteRow {
  std::string site, family, impl;
  int calls = 0;
};

struct FamilyVerdict {
  std::string family, verdict, reason;
  int sites = 0;
  bool ported = false;
  std::optional<double> micro_speedup;
  std::map<std::string, double> step_speedup;  // mode -> engine / ako family kernel time
};

struct ValidateResult {
  std::string model, note, device;
  bool tiny = false, graph = false;
  int steps = 0;
  std::vector<std::pair<std::string, int>> blocks_run, blocks_real;
  std::string blocks_note;
  std::vector<BackendResult> backends;
  std::vector<SiteRow> ako_sites;
  std::vector<SiteRow> engine_sites;         // what the engine backend ran at each site (SGLang's kernel, or torch and why)
  std::vector<FamilyVerdict> families;
  std::map<std::string, double> step_speedup;  // mode -> engine step / ako step
  std::vector<std::string> ported;
  std::string ako_unavailable;
  std::string verdict;                          // pass, fail, smoke
  std::vector<std::string> failures;
  const BackendResult* backend(const std::string& name) const;
  bool passed() const { return verdict == "pass" || verdict == "smoke"; }
};

// Throws ako::Error naming the file and the field when it is not an ako.validate/1 result.
ValidateResult read_validate_json(const std::filesystem::path& file);
ValidateResult parse_validate_json(const std::string& text, const std::string& source);

}  // namespace ako::validate
