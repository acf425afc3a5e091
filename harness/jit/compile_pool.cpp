// compile_all(): NVRTC serialises compiles across the threads of one process
// (cuda_tech.md §1), so cache misses are compiled by forked child processes, at most `jobs`
// at once. Each child compiles one program into the cache directory and reports through a
// pipe (child_report.hpp); the parent then loads every module from the cache. A child runs in
// a process group of its own under a memory cap (RLIMIT_AS above what it started with), dies
// with the thread that forked it, and is killed with its group at the time limit.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <optional>

#include <fmt/format.h>

#include "common/error.hpp"
#include "jit/build.hpp"
#include "jit/cache_usage.hpp"
#include "jit/child_report.hpp"
#include "jit/compiler.hpp"
#include "jit/disk_cache.hpp"
#include "jit/file_io.hpp"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace ako::jit {

namespace {

struct Limits {
  double timeout_s = 0;
  unsigned long long memory_bytes = 0;
};

struct Child {
  pid_t pid;
  int fd;
  size_t task;
  std::string message;
  std::optional<Clock::time_point> deadline;
  bool timed_out = false;
  int attempt = 1;
};

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// The process's virtual size in bytes (VmSize), 0 when /proc does not say.
unsigned long long virtual_size() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmSize:", 0) == 0) return std::strtoull(line.c_str() + 7, nullptr, 10) * 1024;
  return 0;
}

// The memory cap counts from what the child already maps (the parent's address space,
// NVRTC and, on a GPU machine, the driver's reservations): only what the compile adds.
void cap_memory(unsigned long long bytes) {
  if (bytes == 0) return;
  const unsigned long long base = virtual_size();
  if (base == 0) return;
  const rlimit limit{base + bytes, base + bytes};
  setrlimit(RLIMIT_AS, &limit);
}

bool mentions_out_of_memory(const std::string& text) {
  return text.find("out of memory") != std::string::npos || text.find("OUT_OF_MEMORY") != std::string::npos;
}

// ": <the line that says so>" (EDG's "catastrophic error: out of memory", with its file and
// line), or "" when no line of the error does.
std::string oom_line(const std::string& error) {
  for (size_t pos = 0; pos < error.size();) {
    const size_t end = std::min(error.find('\n', pos), error.size());
    const std::string line = error.substr(pos, end - pos);
    if (mentions_out_of_memory(line)) return ": " + line;
    pos = end + 1;
  }
  return {};
}

std::string memory_cap_text(const Limits& limits) {
  return limits.memory_bytes ? " under the compile memory cap of " + format_size(limits.memory_bytes) + " (--compile-memory)"
                             : "";
}

[[noreturn]] void child_main(const PreparedRequest& p, const fs::path& dir, int fd, pid_t parent,
                             const Limits& limits) {
  // Its own group, so that the parent can kill everything it may start; and never an orphan.
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(3);  // the parent died before prctl
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  signal(SIGXFSZ, SIG_IGN);  // a file-size limit makes write() fail (EFBIG) instead of killing us
  cap_memory(limits.memory_bytes);
  // Keep stdio and the report pipe only. A descriptor inherited from a thread of the parent that
  // held the cache lock at the fork (inside a load or a prune) would keep that lock held here,
  // and this child would wait on itself for it when it stores its entry.
  if (fd > 3) close_range(3, static_cast<unsigned>(fd) - 1, 0);
  close_range(static_cast<unsigned>(fd) + 1, ~0U, 0);

  // Test hook: the first child to create this file hangs as one stuck on an inherited lock
  // would (see run_children), the next one compiles.
  if (const char* hang = std::getenv("AKO_TEST_COMPILE_HANG_ONCE"); hang && *hang)
    if (const int marker = open(hang, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600); marker >= 0)
      for (;;) pause();

  const std::string& name = p.request.display_name;
  ChildReport report;
  int code = 0;
  try {
    BuiltProgram b = build(p);
    try {
      store_entry(dir, p.key, b.cubin, b.ptx, b.record, b.module);
      report.status = ChildReport::Status::stored;
    } catch (const WriteError& e) {
      // The cache cannot take it: the parent stores it where it can (its scratch folder).
      report.status = ChildReport::Status::not_stored;
      report.text = e.what();
      report.program = std::move(b);
    }
  } catch (const std::bad_alloc&) {
    report = {ChildReport::Status::out_of_memory, "", {}};
    code = 1;
  } catch (const std::exception& e) {
    const bool oom = mentions_out_of_memory(e.what());
    report = {oom ? ChildReport::Status::out_of_memory : ChildReport::Status::failed, e.what(), {}};
    code = 1;
  } catch (...) {
    report = {ChildReport::Status::failed, name + ": unknown error while compiling", {}};
    code = 1;
  }
  if (report.status == ChildReport::Status::out_of_memory)
    report.text = fmt::format("compile_out_of_memory: {}: NVRTC ran out of memory{}{}", name, memory_cap_text(limits),
                              oom_line(report.text));
  write_all(fd, encode(report));
  _exit(code);  // no atexit handlers, no stdio flush: the parent's state is not ours
}

Child spawn(const PreparedRequest& p, const fs::path& dir, size_t task, const Limits& limits) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw Error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    child_main(p, dir, fds[1], parent, limits);
  }
  setpgid(pid, pid);  // also here: whichever runs first, the group exists before any kill
  close(fds[1]);
  Child c{pid, fds[0], task, {}, std::nullopt, false};
  if (limits.timeout_s > 0)
    c.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits.timeout_s));
  return c;
}

// What became of one child's program.
struct Reaped {
  std::string error;                     // "" = compiled
  std::optional<BuiltProgram> unstored;  // compiled, but the cache could not take it
  std::string why_unstored;
};

std::string seconds_text(double s) { return fmt::format("{:g} s", s); }

Reaped reap(Child& c, const PreparedRequest& p, const Limits& limits) {
  close(c.fd);
  int status = 0;
  while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string& name = p.request.display_name;
  if (c.timed_out)
    return {fmt::format("compile_timeout: {}: NVRTC was still compiling after {}, the compile time limit "
                        "(--compile-timeout), in {}; {} killed",
                        name, seconds_text(limits.timeout_s),
                        c.attempt > 1 ? "two processes one after the other" : "its process",
                        c.attempt > 1 ? "their process groups were" : "its process group was"),
            std::nullopt, {}};
  std::optional<ChildReport> report = decode(c.message);
  if (WIFEXITED(status) && report) {
    if (report->status == ChildReport::Status::stored && WEXITSTATUS(status) == 0) return {};
    if (report->status == ChildReport::Status::not_stored && WEXITSTATUS(status) == 0 && report->program)
      return {{}, std::move(report->program), report->text};
    if (!report->text.empty()) return {report->text, std::nullopt, {}};
  }
  if (WIFSIGNALED(status))
    return {name + ": compiler process killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                strsignal(WTERMSIG(status)) + ")" +
                (limits.memory_bytes ? "; a compiler that runs out of memory" + memory_cap_text(limits) + " may be killed so" : ""),
            std::nullopt, {}};
  return {name + ": compiler process exited with status " + std::to_string(WEXITSTATUS(status)), std::nullopt, {}};
}

// Milliseconds until the nearest deadline (0 when one has passed), -1 when none.
int poll_timeout_ms(const std::vector<Child>& running) {
  std::optional<Clock::time_point> nearest;
  for (const auto& c : running)
    if (c.deadline && !c.timed_out && (!nearest || *c.deadline < *nearest)) nearest = c.deadline;
  if (!nearest) return -1;
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(*nearest - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(ms, 0, 60'000));
}

// Compiles every task in child processes; one Reaped per task. A child past the time limit gets
// one more try in a fresh process before the program is called a compile_timeout: a child is
// forked, not exec'd, from a process whose other threads (a tune measures while it compiles;
// the --gpus lanes) may hold a lock (the dynamic loader's, the unwinder's) at the fork, and a
// child that needs it waits forever. A second fork will not find the same lock held; a program
// that is merely slow times out twice.
std::vector<Reaped> run_children(const std::vector<const PreparedRequest*>& tasks, const fs::path& dir, size_t jobs,
                                 const Limits& limits, const std::function<bool()>& stop) {
  std::vector<Reaped> results(tasks.size());
  std::vector<Child> running;
  std::vector<size_t> retry;  // tasks whose first child timed out
  size_t next = 0;
  std::fflush(nullptr);  // else buffered output would be written again by each child
  while (next < tasks.size() || !retry.empty() || !running.empty()) {
    while (running.size() < jobs && !retry.empty()) {
      running.push_back(spawn(*tasks[retry.back()], dir, retry.back(), limits));
      running.back().attempt = 2;
      retry.pop_back();
    }
    if (next < tasks.size() && running.size() < jobs && stop && stop()) {
      for (; next < tasks.size(); ++next)
        results[next].error = "compile_not_started: " + tasks[next]->request.display_name + ": not compiled: stopped first";
      continue;  // the loop's condition again: nothing may be running now (no poll on no children)
    }
    while (running.size() < jobs && next < tasks.size()) {
      running.push_back(spawn(*tasks[next], dir, next, limits));
      ++next;
    }
    std::vector<pollfd> fds;
    for (const auto& c : running) fds.push_back({c.fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), poll_timeout_ms(running)) < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("poll: ") + std::strerror(errno));
    }
    // A child past its deadline is killed with its group; its pipe then reaches end-of-file.
    const auto now = Clock::now();
    for (auto& c : running)
      if (c.deadline && !c.timed_out && now >= *c.deadline) {
        c.timed_out = true;
        kill(-c.pid, SIGKILL);
        kill(c.pid, SIGKILL);
      }
    // Read what is there; a child whose pipe reached end-of-file is done.
    for (size_t i = fds.size(); i-- > 0;) {
      if (!fds[i].revents) continue;
      char buf[65536];
      const ssize_t n = read(running[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        running[i].message.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (running[i].timed_out && running[i].attempt == 1) {
        close(running[i].fd);
        while (waitpid(running[i].pid, nullptr, 0) < 0 && errno == EINTR) {
        }
        retry.push_back(running[i].task);
      } else {
        results[running[i].task] = reap(running[i], *tasks[running[i].task], limits);
      }
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  return results;
}

struct UniqueProgram {
  PreparedRequest prepared;
  std::vector<size_t> requests;  // indices of the requests that are this program
  std::optional<CompiledModule> module;
  std::string error;
};

// Notes said once per batch: the first unwritable path in full, and how many programs it cost.
struct Notes {
  std::string unwritable;
  size_t unwritable_count = 0;
  std::vector<std::string> damaged;

  std::vector<std::string> lines(const fs::path& dir, const fs::path& scratch) const {
    std::vector<std::string> out = damaged;
    if (unwritable_count)
      out.push_back(fmt::format("kernel cache {} cannot be written; {} program{} compiled without it, into {} (removed "
                                "when ako exits): {}",
                                dir.string(), unwritable_count, unwritable_count == 1 ? "" : "s", scratch.string(),
                                unwritable));
    return out;
  }
};

}  // namespace

std::string compile_fault(const std::string& error) {
  if (error.empty()) return {};
  if (error.rfind("compile_timeout: ", 0) == 0) return "compile_timeout";
  if (error.rfind("compile_out_of_memory: ", 0) == 0) return "compile_out_of_memory";
  if (error.rfind("compile_not_started: ", 0) == 0) return "compile_not_started";
  return "compile_error";
}

BatchResult compile_all(const std::vector<CompileRequest>& reqs, const CompileOptions& opt) {
  BatchResult out;
  out.modules.resize(reqs.size());
  out.errors.resize(reqs.size());
  const bool caching = opt.use_cache && !opt.cache_dir.empty();
  const fs::path dir = caching ? opt.cache_dir : scratch_dir();
  const unsigned long long cap = caching ? cache_max_bytes(opt) : 0;  // a malformed setting is said up front
  const Limits limits{opt.timeout_s, opt.memory_bytes};

  // Identical requests (same key) are compiled once.
  std::vector<UniqueProgram> programs;
  for (size_t i = 0; i < reqs.size(); ++i) {
    try {
      PreparedRequest p = prepare(reqs[i], opt);
      auto same = std::find_if(programs.begin(), programs.end(),
                               [&](const UniqueProgram& u) { return u.prepared.key == p.key; });
      if (same != programs.end()) {
        same->requests.push_back(i);
      } else {
        programs.push_back({std::move(p), {i}, std::nullopt, {}});
      }
    } catch (const std::exception& e) {
      out.errors[i] = e.what();
    }
  }

  Notes notes;
  std::vector<UniqueProgram*> misses;
  for (auto& u : programs) {
    if (caching) {
      LoadedEntry hit = load_entry(dir, u.prepared.key);
      u.module = std::move(hit.module);
      if (!hit.damage.empty())
        notes.damaged.push_back(fmt::format("kernel cache: the entry of {} ({}) failed its check: {}; rebuilt",
                                            u.prepared.request.display_name, entry_paths(dir, u.prepared.key).json.string(),
                                            hit.damage));
    }
    if (u.module) {
      u.module->compile_ms = 0;
    } else {
      misses.push_back(&u);
    }
  }

  size_t stored = 0;
  if (!misses.empty()) {
    std::vector<const PreparedRequest*> tasks;
    for (auto* u : misses) tasks.push_back(&u->prepared);
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const size_t jobs = opt.jobs > 0 ? static_cast<size_t>(opt.jobs) : static_cast<size_t>(std::max(1L, cpus));
    auto results = run_children(tasks, dir, jobs, limits, opt.stop);
    for (size_t t = 0; t < misses.size(); ++t) {
      auto* u = misses[t];
      Reaped& r = results[t];
      u->error = r.error;
      if (!u->error.empty()) continue;
      fs::path from = dir;
      if (r.unstored) {
        // The cache could not take it: kept in this process's scratch folder instead.
        if (!notes.unwritable_count++) notes.unwritable = r.why_unstored;
        from = scratch_dir();
        try {
          store_entry(from, u->prepared.key, r.unstored->cubin, r.unstored->ptx, r.unstored->record, r.unstored->module);
        } catch (const WriteError& e) {
          u->error = u->prepared.request.display_name + ": compiled, but neither the cache nor the scratch folder can hold it: " +
                     e.what();
          continue;
        }
      } else if (caching) {
        ++stored;
      }
      u->module = load_entry(from, u->prepared.key).module;
      if (u->module) {
        u->module->cache_hit = false;
      } else {
        u->error = u->prepared.request.display_name + ": compiled, but its cache entry in " + from.string() +
                   " cannot be read back";
      }
    }
  }
  // The size cap, after writes only (a warm run never scans the cache).
  if (stored && cap) prune_cache(dir, cap);
  out.notes = notes.lines(dir, notes.unwritable_count ? scratch_dir() : fs::path());

  for (const auto& u : programs) {
    for (size_t i : u.requests) {
      if (u.module) out.modules[i] = *u.module;
      out.errors[i] = u.error;
    }
  }
  return out;
}

}  // namespace ako::jit
