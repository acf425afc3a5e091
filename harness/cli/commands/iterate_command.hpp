#pragma once
// `ako iterate` and `ako best`: one AKO iteration as one command (harness/iterate/).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ako::cli {

struct IterateOptions {
  std::string task;                      // empty: the only task under tasks/
  std::filesystem::path root;            // empty: the nearest folder with tasks/ upward from here
  std::string hypothesis;                // -m
  std::string label;                     // --label: the short title (default: the hypothesis' first line)
  bool ncu = false;                      // profile the hottest case
  bool force = false;                    // start even though the previous Analysis is empty
  bool restore_best = false;             // ako best: bring back the best iteration's source
  std::filesystem::path result_json;     // a recorded `ako run --json` result instead of running here
  std::vector<std::string> shapes, dtypes;
  std::string upstream_url, default_branch;  // as for ako doctor
  std::string arch;
  double max_time_s = 0.25;
  int jobs = 0;
  bool no_cache = false;
  std::filesystem::path cache_dir;
  std::optional<bool> progress;          // default: when stderr is a terminal
};

// Exit 0: recorded, every case correct; 1: recorded with incorrect or failed cases, or refused
// (hygiene, empty Analysis: nothing recorded; the ITERATION: line says which); 2: usage or
// environment error (no GPU, not a repository, spec error), nothing recorded.
int iterate_command(const IterateOptions& opt);

}  // namespace ako::cli
