// compile_all(): NVRTC serialises compiles across the threads of one process
// (cuda_tech.md §1), so cache misses are compiled by forked child processes, at most `jobs`
// at once. Each child compiles one program into the cache directory and reports "ok" or the
// error text through a pipe; the parent then loads every module from the cache.
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "common/error.hpp"
#include "jit/build.hpp"
#include "jit/compiler.hpp"
#include "jit/disk_cache.hpp"

namespace fs = std::filesystem;

namespace ako::jit {

namespace {

struct Child {
  pid_t pid;
  int fd;
  size_t task;
  std::string message;
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

[[noreturn]] void child_main(const PreparedRequest& p, const fs::path& dir, int fd) {
  std::string message = "ok";
  int code = 0;
  try {
    build_into(p, dir);
  } catch (const std::exception& e) {
    message = e.what();
    code = 1;
  } catch (...) {
    message = p.request.display_name + ": unknown error while compiling";
    code = 1;
  }
  write_all(fd, message);
  _exit(code);  // no atexit handlers, no stdio flush: the parent's state is not ours
}

Child spawn(const PreparedRequest& p, const fs::path& dir, size_t task) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw Error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    child_main(p, dir, fds[1]);
  }
  close(fds[1]);
  return {pid, fds[0], task, {}};
}

// "" when the child compiled its program, else why not.
std::string reap(Child& c, const PreparedRequest& p) {
  close(c.fd);
  int status = 0;
  while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && c.message == "ok") return {};
  if (WIFSIGNALED(status))
    return p.request.display_name + ": compiler process killed by signal " +
           std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  if (c.message.empty() || c.message == "ok")
    return p.request.display_name + ": compiler process exited with status " +
           std::to_string(WEXITSTATUS(status));
  return c.message;
}

// Compiles every task in child processes; returns one error text per task ("" = success).
std::vector<std::string> run_children(const std::vector<const PreparedRequest*>& tasks,
                                      const fs::path& dir, size_t jobs) {
  std::vector<std::string> errors(tasks.size());
  std::vector<Child> running;
  size_t next = 0;
  std::fflush(nullptr);  // else buffered output would be written again by each child
  while (next < tasks.size() || !running.empty()) {
    while (running.size() < jobs && next < tasks.size()) {
      running.push_back(spawn(*tasks[next], dir, next));
      ++next;
    }
    std::vector<pollfd> fds;
    for (const auto& c : running) fds.push_back({c.fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("poll: ") + std::strerror(errno));
    }
    // Read what is there; a child whose pipe reached end-of-file is done.
    for (size_t i = fds.size(); i-- > 0;) {
      if (!fds[i].revents) continue;
      char buf[4096];
      const ssize_t n = read(running[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        running[i].message.append(buf, static_cast<size_t>(n));
        continue;
      }
      errors[running[i].task] = reap(running[i], *tasks[running[i].task]);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  return errors;
}

struct UniqueProgram {
  PreparedRequest prepared;
  std::vector<size_t> requests;  // indices of the requests that are this program
  std::optional<CompiledModule> module;
  std::string error;
};

}  // namespace

BatchResult compile_all(const std::vector<CompileRequest>& reqs, const CompileOptions& opt) {
  BatchResult out;
  out.modules.resize(reqs.size());
  out.errors.resize(reqs.size());
  const bool caching = opt.use_cache && !opt.cache_dir.empty();
  const fs::path dir = caching ? opt.cache_dir : scratch_dir();

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

  std::vector<UniqueProgram*> misses;
  for (auto& u : programs) {
    if (caching) u.module = load_entry(dir, u.prepared.key);
    if (u.module) {
      u.module->compile_ms = 0;
    } else {
      misses.push_back(&u);
    }
  }

  if (!misses.empty()) {
    std::vector<const PreparedRequest*> tasks;
    for (auto* u : misses) tasks.push_back(&u->prepared);
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const size_t jobs = opt.jobs > 0 ? static_cast<size_t>(opt.jobs) : static_cast<size_t>(std::max(1L, cpus));
    const auto errors = run_children(tasks, dir, jobs);
    for (size_t t = 0; t < misses.size(); ++t) {
      auto* u = misses[t];
      u->error = errors[t];
      if (!u->error.empty()) continue;
      u->module = load_entry(dir, u->prepared.key);
      if (u->module) {
        u->module->cache_hit = false;
      } else {
        u->error = u->prepared.request.display_name + ": compiled, but its cache entry in " +
                   dir.string() + " cannot be read back";
      }
    }
  }

  for (const auto& u : programs) {
    for (size_t i : u.requests) {
      if (u.module) out.modules[i] = *u.module;
      out.errors[i] = u.error;
    }
  }
  return out;
}

}  // namespace ako::jit
