// write_file_atomically (harness/common/atomic_file.cpp): the content lands whole, and the named
// temporaries that killed writers left beside the file are removed by the next write, while
// those of live writers and every other file stay.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/atomic_file.hpp"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "ako-atomic-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// A pid that was a process and is not one now: a child that exited and was reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

TEST(AtomicFile, ReplacesTheContentWhole) {
  TempDir d;
  const fs::path file = d.path / "run.json";
  ako::write_file_atomically(file, "first\n");
  ako::write_file_atomically(file, "second\n");
  EXPECT_EQ(ako::read_file(file), "second\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(d.path), fs::directory_iterator()), 1);
}

TEST(AtomicFile, TheNextWriteRemovesTheTemporaryOfAWriterKilledBeforeItsRename) {
  TempDir d;
  const fs::path file = d.path / "run.json";
  const pid_t dead = dead_pid();
  const fs::path killed = d.path / (".run.json.tmp." + std::to_string(dead));
  const fs::path alive = d.path / (".run.json.tmp." + std::to_string(::getppid()));
  const fs::path other_file = d.path / (".other.json.tmp." + std::to_string(dead));
  const fs::path not_a_pid = d.path / ".run.json.tmp.notes";
  for (const auto& p : {killed, alive, other_file, not_a_pid}) ako::write_file_atomically(p, "{}\n");
  ASSERT_TRUE(fs::exists(killed));

  ako::write_file_atomically(file, "{\"schema\": \"ako.run/1\"}\n");
  EXPECT_EQ(ako::read_file(file), "{\"schema\": \"ako.run/1\"}\n");
  EXPECT_FALSE(fs::exists(killed)) << "a dead writer's temporary stayed";
  EXPECT_TRUE(fs::exists(alive)) << "a live writer's temporary was removed";
  EXPECT_TRUE(fs::exists(other_file)) << "another file's temporary was removed";
  EXPECT_TRUE(fs::exists(not_a_pid));
}

}  // namespace
