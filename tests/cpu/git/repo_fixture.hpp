#pragma once
// Throw-away repositories for the hygiene tests: a bare `upstream.git`, a maintainer's clone
// (`author/`) that pushes to it, and the workspace clone (`work/`, origin = upstream.git, no
// `upstream` remote yet). Set-up uses the git CLI (test fixtures only; the product uses libgit2),
// which also proves ako reads what real git writes.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <sys/wait.h>

namespace ako::git::testing {

namespace fs = std::filesystem;

struct Shell {
  int status = -1;
  std::string out;
};

inline Shell shell(const std::string& cmd) {
  Shell r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) throw std::runtime_error("popen failed: " + cmd);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

inline void write_text(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

inline bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

class RepoFixture : public ::testing::Test {
 protected:
  fs::path dir, upstream, author, work;

  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ako-git-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir = tmpl;
    upstream = dir / "upstream.git";
    author = dir / "author";
    work = dir / "work";
    git(dir, "init -q --bare -b main upstream.git");
    git(dir, "clone -q upstream.git author");
    git(author, "symbolic-ref HEAD refs/heads/main");
    write_text(author / ".gitignore", "*.log\nbuild/\n");
    commit(author, "a.txt", "one\n", "first commit");
    git(author, "push -q origin main");
    git(dir, "clone -q upstream.git work");
  }
  void TearDown() override { fs::remove_all(dir); }

  // git with a fixed identity and no user or system config, so the host cannot change results.
  std::string git(const fs::path& where, const std::string& args) {
    const Shell r = shell("cd '" + where.string() + "' && GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null " +
                          "git -c user.name=ako-test -c user.email=test@ako -c commit.gpgsign=false " +
                          "-c advice.detachedHead=false " + args);
    if (r.status != 0) throw std::runtime_error("git " + args + " failed in " + where.string() + ":\n" + r.out);
    return r.out;
  }
  std::string rev(const fs::path& where, const std::string& what) {
    std::string s = git(where, "rev-parse " + what);
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }
  void commit(const fs::path& where, const std::string& file, const std::string& text, const std::string& message) {
    write_text(where / file, text);
    git(where, "add -A");
    git(where, "commit -q -m '" + message + "'");
  }
  // The maintainer publishes a commit on upstream's main.
  void upstream_commit(const std::string& file, const std::string& text, const std::string& message) {
    commit(author, file, text, message);
    git(author, "push -q origin main");
  }
};

}  // namespace ako::git::testing
