// A cache that cannot be written (read-only, full, a write that fails): the compile still
// completes, into this process's scratch folder; the note names the path and the reason;
// nothing in the cache is left half-written (no entry without its JSON is ever loaded, no
// temporary file stays). Read-only needs a user chmod denies: as root (which chmod does not
// stop) the test drops to nobody in a child. A full disk is a tmpfs of 64 KiB in a private mount
// namespace; where no namespace may be made, that test says so and skips.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "jit/build.hpp"
#include "jit/disk_cache.hpp"
#include "jit_test_support.hpp"

namespace ako::jit {
namespace {

using namespace ako::jit::testing;

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

bool under(const fs::path& file, const fs::path& dir) {
  const auto rel = fs::weakly_canonical(file).lexically_relative(fs::weakly_canonical(dir));
  return !rel.empty() && *rel.begin() != "..";
}

// Every file under `dir` whose name says it is a temporary file of a writer.
std::vector<std::string> temporary_files(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (has(it->path().filename().string(), ".tmp.")) out.push_back(it->path().string());
  return out;
}

// What a compile in a child process saw, as text (the child may run as another user, or in
// another mount namespace, so it checks what only it can see and reports).
struct ChildOutcome {
  int status = -1;
  std::string report;
};

template <typename Body>
ChildOutcome in_child(Body body) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string report;
    int code = 0;
    try {
      code = body(report);
    } catch (const std::exception& e) {
      report += std::string("exception: ") + e.what();
      code = 1;
    }
    if (write(fds[1], report.data(), report.size()) < 0) code = 1;
    _exit(code);
  }
  close(fds[1]);
  ChildOutcome out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) out.report.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  out.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

// The checks every unwritable case shares, in the process that compiled. Returns "" or the failure.
std::string compiled_without_cache(const BatchResult& b, const fs::path& cache, const std::string& reason) {
  if (b.errors[0] != "") return "error: " + b.errors[0];
  if (!has_elf_magic(b.modules[0].cubin)) return "no cubin at " + b.modules[0].cubin.string();
  if (under(b.modules[0].cubin, cache)) return "the cubin is in the unwritable cache";
  if (b.notes.size() != 1) return "expected one note, got " + std::to_string(b.notes.size());
  if (!has(b.notes[0], "kernel cache " + cache.string() + " cannot be written; 1 program compiled without it"))
    return "note: " + b.notes[0];
  if (!has(b.notes[0], reason)) return "the note does not say '" + reason + "': " + b.notes[0];
  if (load_entry(cache, b.modules[0].key).module) return "an entry was loaded from the unwritable cache";
  if (!temporary_files(cache).empty()) return "temporary file left: " + temporary_files(cache).front();
  return {};
}

TEST(CacheUnwritable, AnInjectedWriteFailureFallsBackAndLeavesNoEntry) {
  TempDir tmp;
  const auto opt = cached_in(tmp.path());
  // The entry's JSON path is taken by a folder: its rename fails, after the cubin and PTX were
  // written; the entry never becomes loadable.
  const std::string key = cache_key(scale_request(), opt);
  const fs::path json = entry_paths(opt.cache_dir, key).json;
  fs::create_directories(json);
  const auto b = compile_all({scale_request()}, opt);
  EXPECT_EQ(compiled_without_cache(b, opt.cache_dir, "cannot write " + json.string()), "");
  fs::remove(json);
  const auto again = compile_all({scale_request()}, opt);
  EXPECT_FALSE(again.modules[0].cache_hit);
  EXPECT_TRUE(again.notes.empty());
  EXPECT_TRUE(compile_all({scale_request()}, opt).modules[0].cache_hit) << "not stored once writable again";
}

TEST(CacheUnwritable, ACacheFolderThatCannotExistFallsBack) {
  TempDir tmp;
  write_text(tmp.path() / "a-file", "not a folder\n");
  CompileOptions opt;
  opt.cache_dir = tmp.path() / "a-file" / "cache";
  const auto b = compile_all({scale_request()}, opt);
  EXPECT_EQ(compiled_without_cache(b, opt.cache_dir, "Not a directory"), "");
}

TEST(CacheUnwritable, AReadOnlyCacheFallsBackAndStaysUntouched) {
  TempDir tmp;
  const fs::path cache = tmp.path() / "cache";
  fs::create_directories(cache);
  ::chmod(tmp.path().c_str(), 0755);
  ::chmod(cache.c_str(), 0555);
  const bool root = geteuid() == 0;
  const ChildOutcome o = in_child([&](std::string& report) {
    // chmod does not stop root: compile as nobody, for whom the folder is read-only.
    if (root && (setgid(65534) != 0 || setuid(65534) != 0)) {
      report = std::string("cannot become nobody: ") + std::strerror(errno);
      return 77;
    }
    CompileOptions opt;
    opt.cache_dir = cache;
    report = compiled_without_cache(compile_all({scale_request()}, opt), cache, "Permission denied");
    fs::remove_all(scratch_dir());  // this child leaves by _exit
    return report.empty() ? 0 : 1;
  });
  if (o.status == 77) GTEST_SKIP() << o.report;
  EXPECT_EQ(o.status, 0) << o.report;
  EXPECT_TRUE(fs::is_empty(cache)) << "the read-only cache was written";
  RecordProperty("method", root ? "root: compiled as nobody (uid 65534)" : "chmod 0555");
}

TEST(CacheUnwritable, AFullDiskFallsBack) {
  TempDir tmp;
  const fs::path cache = tmp.path() / "cache";
  fs::create_directories(cache);
  const ChildOutcome o = in_child([&](std::string& report) {
    // A tmpfs of 64 KiB over the cache, in a mount namespace of this child only, then filled.
    if (unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("tmpfs", cache.c_str(), "tmpfs", 0, "size=64k") != 0) {
      report = std::string("no private tmpfs here (") + std::strerror(errno) +
               "): needs CAP_SYS_ADMIN; the injected write failure and the read-only tests cover the fallback";
      return 77;
    }
    {
      std::ofstream fill(cache / "filler", std::ios::binary);
      const std::string block(4096, 'x');
      while (fill.write(block.data(), block.size())) {
      }
    }
    CompileOptions opt;
    opt.cache_dir = cache;
    report = compiled_without_cache(compile_all({scale_request()}, opt), cache, "No space left on device");
    fs::remove_all(scratch_dir());  // this child leaves by _exit
    return report.empty() ? 0 : 1;
  });
  if (o.status == 77) GTEST_SKIP() << o.report;
  EXPECT_EQ(o.status, 0) << o.report;
}

}  // namespace
}  // namespace ako::jit
