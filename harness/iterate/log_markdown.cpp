#include "iterate/log_markdown.hpp"

#include <algorithm>
#include <array>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"

namespace ako::iterate {

namespace {

constexpr const char* kTitle = "# Iterations";
constexpr const char* kTaskPrefix = "## Task ";
constexpr const char* kEntryPrefix = "### Iter ";
constexpr const char* kDash = " — ";
constexpr const char* kTableHeader = "| Iter | Title | Speedup | Runtime | Status |";
constexpr const char* kTableRule = "| --- | --- | --- | --- | --- |";

struct Section {
  const char* label;
  std::string LogEntry::*field;
  bool always;  // rendered even when empty: the user fills it in
};
const std::array<Section, 6> kSections{{{"Hypothesis", &LogEntry::hypothesis, false},
                                        {"Changes", &LogEntry::changes, false},
                                        {"Bench", &LogEntry::bench, false},
                                        {"ncu", &LogEntry::ncu, false},
                                        {"Analysis", &LogEntry::analysis, true},
                                        {"Next", &LogEntry::next, true}}};

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string escape_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

// "| a | b\|c |" -> {"a", "b|c"}
std::vector<std::string> split_row(const std::string& line) {
  std::vector<std::string> cells;
  std::string cur;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cur += '|';
      ++i;
    } else if (line[i] == '|') {
      cells.push_back(trim(cur));
      cur.clear();
    } else {
      cur += line[i];
    }
  }
  if (!trim(cur).empty()) cells.push_back(trim(cur));
  return cells;
}

// "**Hypothesis.** text" or "**Bench** (text": the section and the rest of the line.
const Section* section_of(const std::string& line, std::string& rest) {
  for (const auto& s : kSections)
    for (const std::string& token : {fmt::format("**{}.**", s.label), fmt::format("**{}**", s.label)})
      if (line.starts_with(token)) {
        rest = line.substr(token.size());
        return &s;
      }
  return nullptr;
}

int parse_iter(const std::string& word, const std::string& where) {
  try {
    size_t used = 0;
    const int n = std::stoi(word, &used);
    if (used == word.size() && n >= 0) return n;
  } catch (const std::exception&) {
  }
  throw Error(where + ": '" + word + "' is not an iteration number (0, 1, 2, ...)");
}

}  // namespace

std::string default_preamble() {
  return "The AKO log, written by `ako iterate`: one section per task, one entry per iteration, newest\n"
         "last. Speedup is the solution against the reference kernel (`input/`) summed over the correct\n"
         "timed cases; Runtime is the sum of the solution's IQMs. Fill in **Analysis** and **Next**\n"
         "after each iteration: `ako iterate` refuses to start the next one while Analysis is empty.";
}

std::string render_log(const IterationLog& log) {
  std::string out = std::string(kTitle) + "\n\n";
  if (!trim(log.preamble).empty()) out += trim(log.preamble) + "\n\n";
  for (const auto& t : log.tasks) {
    out += kTaskPrefix + t.task + "\n\n" + kTableHeader + "\n" + kTableRule + "\n";
    for (const auto& e : t.entries)
      out += fmt::format("| {} | {} | {} | {} | {} |\n", e.iter, escape_cell(e.title), escape_cell(e.speedup),
                         escape_cell(e.runtime), escape_cell(e.status));
    out += "\n";
    for (const auto& e : t.entries) {
      out += fmt::format("{}{}{}{}\n\n", kEntryPrefix, e.iter, kDash, e.title);
      for (const auto& s : kSections) {
        const std::string text = trim(e.*(s.field));
        if (text.empty() && !s.always) continue;
        out += fmt::format("**{}.**{}{}\n\n", s.label, text.empty() ? "" : " ", text);
      }
    }
  }
  while (out.ends_with("\n\n")) out.pop_back();
  return out;
}

IterationLog parse_log(const std::string& text, const std::string& file) {
  IterationLog log;
  std::istringstream in(text);
  std::string line, preamble, section_text;
  int line_no = 0;
  bool seen_title = false;
  TaskLog* task = nullptr;
  LogEntry* entry = nullptr;
  std::string LogEntry::*field = nullptr;
  auto where = [&] { return file + ":" + std::to_string(line_no); };
  auto close_section = [&] {
    if (entry && field) entry->*field = trim(section_text);
    section_text.clear();
    field = nullptr;
  };
  auto entry_for = [&](int iter) -> LogEntry& {
    if (LogEntry* e = task->find(iter)) return *e;
    task->entries.push_back({});
    task->entries.back().iter = iter;
    return task->entries.back();
  };

  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!seen_title) {
      if (trim(line).empty()) continue;
      if (line != kTitle) throw Error(where() + ": expected the title line '" + kTitle + "', found '" + line + "'");
      seen_title = true;
      continue;
    }
    if (line.starts_with(kTaskPrefix)) {
      close_section();
      const std::string name = trim(line.substr(std::string(kTaskPrefix).size()));
      if (name.empty()) throw Error(where() + ": '## Task' without a task name");
      if (log.find(name)) throw Error(where() + ": a second section for task '" + name + "'; merge the two");
      task = &log.task(name);
      entry = nullptr;
      continue;
    }
    if (!task) {
      preamble += line + "\n";
      continue;
    }
    if (line.starts_with(kEntryPrefix)) {
      close_section();
      const std::string rest = line.substr(std::string(kEntryPrefix).size());
      size_t dash = rest.find(kDash), dash_len = std::string(kDash).size();
      if (dash == std::string::npos) throw Error(where() + ": expected '### Iter N — title', found '" + line + "'");
      entry = &entry_for(parse_iter(trim(rest.substr(0, dash)), where()));
      entry->title = trim(rest.substr(dash + dash_len));
      continue;
    }
    if (!entry) {  // the task's summary table
      if (trim(line).empty() || line == kTableHeader || line == kTableRule) continue;
      if (!line.starts_with("|"))
        throw Error(where() + ": text between task " + task->task +
                    "'s summary table and its first '### Iter' entry; move it into an entry's section");
      const auto cells = split_row(line);
      if (cells.size() != 5)
        throw Error(where() + ": a summary row needs 5 cells (Iter | Title | Speedup | Runtime | Status), found " +
                    std::to_string(cells.size()));
      LogEntry& e = entry_for(parse_iter(cells[0], where()));
      e.title = cells[1];
      e.speedup = cells[2];
      e.runtime = cells[3];
      e.status = cells[4];
      continue;
    }
    std::string rest;
    if (const Section* s = section_of(line, rest)) {
      close_section();
      field = s->field;
      section_text = rest + "\n";
      continue;
    }
    if (!field) {
      if (trim(line).empty()) continue;
      throw Error(where() + ": text in iteration " + std::to_string(entry->iter) +
                  " before its first section; start it with **Hypothesis.**, **Changes.**, **Bench.**, **ncu.**, "
                  "**Analysis.** or **Next.**");
    }
    section_text += line + "\n";
  }
  close_section();
  if (!seen_title && !trim(text).empty()) throw Error(file + ": no '" + std::string(kTitle) + "' title line");
  log.preamble = trim(preamble);
  for (auto& t : log.tasks)
    std::stable_sort(t.entries.begin(), t.entries.end(), [](const LogEntry& a, const LogEntry& b) { return a.iter < b.iter; });
  return log;
}

}  // namespace ako::iterate
