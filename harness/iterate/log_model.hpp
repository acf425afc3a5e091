#pragma once
// ITERATIONS.md as values: a preamble, then one section per task, each with its summary table
// (Iter, Title, Speedup, Runtime, Status) and its entries (Hypothesis, Changes, Bench, ncu,
// Analysis, Next). The text of each part is kept as written, so the user's prose survives a
// parse and render unchanged.
#include <string>
#include <vector>

namespace ako::iterate {

// What `ako iterate` writes where the user has yet to write: such an Analysis counts as empty.
inline constexpr const char* kAnalysisPlaceholder =
    "_(to fill in before the next iteration: what the numbers say, and why)_";
inline constexpr const char* kNextPlaceholder = "_(to fill in: the next idea to try)_";

struct LogEntry {
  int iter = 0;
  std::string title;
  // The summary table's cells, as written ("1.339x", "3755.14 us", "improved").
  std::string speedup, runtime, status;
  // Section texts (markdown, trimmed; empty when the section is absent).
  std::string hypothesis, changes, bench, ncu, analysis, next;
  bool operator==(const LogEntry&) const = default;
};

struct TaskLog {
  std::string task;
  std::vector<LogEntry> entries;  // in iteration order
  const LogEntry* find(int iter) const;
  LogEntry* find(int iter);
  bool operator==(const TaskLog&) const = default;
};

struct IterationLog {
  std::string preamble;  // between "# Iterations" and the first task section
  std::vector<TaskLog> tasks;
  const TaskLog* find(const std::string& task) const;
  TaskLog& task(const std::string& name);  // adds an empty section when missing
  bool operator==(const IterationLog&) const = default;
};

// Blank, or still the placeholder ako wrote.
bool analysis_is_empty(const LogEntry& e);

}  // namespace ako::iterate
