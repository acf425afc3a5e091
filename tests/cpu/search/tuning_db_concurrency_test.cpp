// The tuning database under interruption and sharing: a torn last line (a writer killed inside
// its write) is cut off before the next record, so no record fuses with it; a whole record that
// lost only its newline keeps it; and several processes appending to one file at once (two
// `ako tune` on two GPUs, two CI jobs) leave every record whole and none lost.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <set>

#include "common/atomic_file.hpp"
#include "search/tuning_db.hpp"
#include "search_fixture.hpp"

namespace ako::search {
namespace {

using namespace testing;

DbRecord record(const std::string& shape, int64_t block, int cases = 1) {
  DbRecord r;
  r.shape = shape;
  r.params = {{"BLOCK", block}};
  r.time_us = static_cast<double>(block);
  r.recorded_at = "2026-11-16T00:00:00Z";
  for (int c = 0; c < cases; ++c)
    r.cases.push_back({shape + " bf16 case " + std::to_string(c), "correct", 1.0 + c, 0.001, 2.0 + c});
  return r;
}

// Every line of the file: records by key, and the lines that are none.
struct Parsed {
  std::map<std::string, int> keys;   // how often each key appears
  std::vector<std::string> broken;
  bool ends_with_newline = true;
};

Parsed parse(const fs::path& f) {
  Parsed p;
  const std::string text = read_file(f);
  p.ends_with_newline = text.empty() || text.back() == '\n';
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    try {
      const DbRecord r = record_from_json(nlohmann::json::parse(line));
      ++p.keys[record_key(r.shape, r.params)];
    } catch (const std::exception&) {
      p.broken.push_back(line.substr(0, 120));
    }
  }
  return p;
}

TEST(TuningDbInterrupted, ATornLastLineIsCutOffBeforeTheNextRecord) {
  ScratchDir dir("torn");
  const fs::path f = dir.path() / "t.jsonl";
  TuningDb(f, synthetic_context()).append(record("s", 64));
  std::ofstream(f, std::ios::app) << R"({"schema":"ako.tune/1","task":"rms)";   // killed mid-write
  TuningDb db(f, synthetic_context());
  EXPECT_EQ(db.skipped_lines, 1);
  db.append(record("s", 128));
  const Parsed p = parse(f);
  EXPECT_TRUE(p.broken.empty()) << p.broken.front();
  EXPECT_TRUE(p.ends_with_newline);
  EXPECT_EQ(p.keys.size(), 2u);
  EXPECT_EQ(TuningDb(f, synthetic_context()).skipped_lines, 0);
}

TEST(TuningDbInterrupted, TheNextTuneSaysWhatItRepaired) {
  ScratchDir dir("repair");
  const fs::path f = dir.path() / "t.jsonl";
  EXPECT_FALSE(TuningDb::repair_interrupted_append(f)) << "no file: nothing to do";
  TuningDb(f, synthetic_context()).append(record("s", 64));
  EXPECT_FALSE(TuningDb::repair_interrupted_append(f)) << "a clean file is left alone";
  const std::string whole = read_file(f);
  std::ofstream(f, std::ios::app) << R"({"schema":"ako.tune/1","ta)";
  const auto cut = TuningDb::repair_interrupted_append(f);
  ASSERT_TRUE(cut);
  EXPECT_NE(cut->find("removed a torn last line (26 bytes)"), std::string::npos) << *cut;
  EXPECT_EQ(read_file(f), whole);

  // A whole record whose newline never made it: kept, completed.
  std::string line = to_json([] {
                       DbRecord r = record("s", 256);
                       r.context = synthetic_context();
                       return r;
                     }()).dump();
  std::ofstream(f, std::ios::app) << line;
  const auto completed = TuningDb::repair_interrupted_append(f);
  ASSERT_TRUE(completed);
  EXPECT_NE(completed->find("lacked a newline; added it"), std::string::npos) << *completed;
  EXPECT_EQ(read_file(f), whole + line + "\n");
  EXPECT_EQ(TuningDb(f, synthetic_context()).size(), 2u);
}

TEST(TuningDbShared, ConcurrentAppendersLoseNoRecordAndInterleaveNoLine) {
  ScratchDir dir("shared");
  const fs::path f = dir.path() / "shared.jsonl";
  // Lines of about 20 KB: larger than a pipe's atomic write and several pages, so a write that
  // is not serialised could interleave with another.
  constexpr int kProcesses = 8, kRecords = 60, kCases = 150;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      try {
        TuningDb db(f, synthetic_context());   // each process has its own view, like two ako tune
        for (int i = 0; i < kRecords; ++i) db.append(record("p" + std::to_string(p), i, kCases));
      } catch (const std::exception&) {
        status = 1;
      }
      _exit(status);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const Parsed parsed = parse(f);
  EXPECT_TRUE(parsed.broken.empty()) << parsed.broken.size() << " broken lines, e.g. " << parsed.broken.front();
  EXPECT_TRUE(parsed.ends_with_newline);
  ASSERT_EQ(parsed.keys.size(), size_t(kProcesses * kRecords));
  for (int p = 0; p < kProcesses; ++p)
    for (int i = 0; i < kRecords; ++i) {
      const auto it = parsed.keys.find(record_key("p" + std::to_string(p), {{"BLOCK", i}}));
      ASSERT_NE(it, parsed.keys.end()) << "lost: process " << p << " record " << i;
      EXPECT_EQ(it->second, 1);
    }
  EXPECT_EQ(TuningDb(f, synthetic_context()).size(), size_t(kProcesses * kRecords));
}

}  // namespace
}  // namespace ako::search
