// `mpirun -np 3 ako tune ...` on one machine, in compile-only mode (no GPU needed): rank 0 owns
// the search and the database, ranks 1 and 2 compile and check the shares they are sent. The
// fake driver (tests/support/fake_gpu/) gives each rank a GPU UUID of its own (as hosts have),
// so the database says which rank did what. A rank that SIGKILLs itself on its first share
// (AKO_TEST_MPI_DIE_RANK, a test hook of ako-mpi-tune) costs only that share: rank 0 hears no
// heartbeat and sends it elsewhere. Skipped, saying why, when this build has no MPI.
#include <gtest/gtest.h>

#include <chrono>

#include <cstdlib>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../ako_cli_support.hpp"
#include "inplace_scale_workspace.hpp"
#include "common/atomic_file.hpp"

namespace {

namespace fs = std::filesystem;
using ako::testsupport::has;
using ako::testsupport::Ran;
using ako::testsupport::run_shell;
using nlohmann::json;

class MpiTuneCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!AKO_HAVE_MPI)
      GTEST_SKIP() << "this build has no MPI (ako-mpi-tune not built: CMake found no MPI or -DAKO_MPI=OFF; "
                      "scripts/setup.sh installs openmpi-bin and libopenmpi-dev)";
    std::string tmpl = (fs::temp_directory_path() / "ako-mpi-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    ws_ = dir_ / "ws";
    ako::testsupport::copy_inplace_scale(ws_, {32, 64, 96, 128, 160, 192, 224, 256, 512, 1024});
  }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure() && !dir_.empty()) fs::remove_all(dir_, ec);
  }

  // mpirun -np 3 ako tune ... in the workspace (root allowed: CI runs as root).
  Ran mpirun(const std::string& mpirun_args, const std::string& tune_args, const std::string& env = "") const {
    const char* ld = std::getenv("LD_LIBRARY_PATH");
    const std::string vars = fmt::format(
        "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp OMPI_MCA_pml=ob1 "
        "AKO_CACHE_DIR='{}' TMPDIR='{}' LD_LIBRARY_PATH='{}{}' {} ",
        (dir_ / "cache").string(), dir_.string(), AKO_FAKE_CUDA_DIR, ld && *ld ? std::string(":") + ld : "", env);
    return run_shell("cd '" + ws_.string() + "' && " + vars + "timeout 120 '" AKO_MPIEXEC "' --oversubscribe " +
                     mpirun_args + " -np 3 '" AKO_BINARY_DIR "/ako' tune task inplace_scale --compile-only "
                     "--strategy exhaustive --no-progress --db '" + db().string() + "' " + tune_args);
  }
  fs::path db() const { return dir_ / "tune.jsonl"; }

  // Every (variant, shape) once, "compiled"; the records per rank (from the fake UUID's rank byte).
  std::map<int, int> expect_each_pair_once() const {
    std::set<std::string> keys;
    std::map<int, int> per_rank;
    std::istringstream in(ako::read_file(db()));
    size_t n = 0;
    for (std::string l; std::getline(in, l);) {
      if (l.empty()) continue;
      const json j = json::parse(l);
      ++n;
      EXPECT_TRUE(keys.insert(j["shape"].get<std::string>() + j["params"].dump()).second) << "twice: " << l;
      EXPECT_EQ(j["verdict"], "compiled") << l;
      const std::string uuid = j.value("gpu_uuid", "");
      EXPECT_EQ(uuid.size(), 40u) << l;
      if (uuid.size() == 40) ++per_rank[std::stoi(uuid.substr(36, 2), nullptr, 16)];
    }
    EXPECT_EQ(keys.size(), 20u);
    EXPECT_EQ(n, 20u);
    return per_rank;
  }

  fs::path dir_, ws_;
};

TEST_F(MpiTuneCli, ThreeRanksSplitTheSearchAndRankZeroRecordsEachVariantOnce) {
  const Ran r = mpirun("", "--mpi");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "MPI: 3 ranks; lanes: ")) << r.out;
  EXPECT_TRUE(has(r.out, "COMPILE-ONLY: 20 of 20 variants compiled")) << r.out;
  EXPECT_TRUE(has(r.out, "3 lanes (0 lost")) << r.out;
  const auto per_rank = expect_each_pair_once();
  for (int rank = 0; rank < 3; ++rank) EXPECT_GT(per_rank.count(rank) ? per_rank.at(rank) : 0, 0) << "rank " << rank;
}

TEST_F(MpiTuneCli, ARankKilledMidSearchHasItsVariantsRetriedElsewhere) {
  // Without --mpi: ako sees that mpirun started it and hands over to ako-mpi-tune itself.
  // --enable-recovery: Open MPI keeps the job going when a rank dies (by default it ends all).
  const Ran r = mpirun("--enable-recovery", "", "AKO_TEST_MPI_DIE_RANK=2 AKO_MPI_RANK_TIMEOUT=3");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "lost: rank 2 silent for")) << r.out;
  EXPECT_TRUE(has(r.out, "3 lanes (1 lost")) << r.out;
  const auto per_rank = expect_each_pair_once();
  EXPECT_EQ(per_rank.count(2), 0u) << "rank 2 died on its first share";
  EXPECT_GT(per_rank.count(0) ? per_rank.at(0) : 0, 0);
  EXPECT_GT(per_rank.count(1) ? per_rank.at(1) : 0, 0);
}

// --time holds on every rank: rank 0 sends what is left of it with each share, and no compile of
// another rank starts past it. A cold cache, one compile at a time per rank and a one-second budget
// leave most of each share uncompiled (ranks 1 and 2 had compiled theirs whole before: 6 and 8
// pairs of the batch of 10 variants split 3, 3, 4); nothing is recorded for those, rank 0 says how
// many, and the resumed tune compiles exactly the rest.
TEST_F(MpiTuneCli, TheTimeBudgetStopsEveryRanksCompilesAndTheResumeAsksTheRestAgain) {
  const Ran r = mpirun("", "--mpi --batch 10 -j 1 --time 1");
  EXPECT_NE(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "STOPPED: the time budget (1s) ran out")) << r.out;
  EXPECT_TRUE(has(r.out, "NOT COMPILED on the other ranks: ")) << r.out;
  std::map<int, int> per_rank;
  size_t first = 0;
  if (fs::exists(db())) {
    std::istringstream in(ako::read_file(db()));
    for (std::string l; std::getline(in, l);)
      if (!l.empty()) {
        const std::string uuid = json::parse(l).value("gpu_uuid", "");
        if (uuid.size() == 40) ++per_rank[std::stoi(uuid.substr(36, 2), nullptr, 16)];
        ++first;
      }
  }
  EXPECT_LT(per_rank[1], 6) << r.out;
  EXPECT_LT(per_rank[2], 8) << r.out;

  const Ran resumed = mpirun("", "--mpi");
  ASSERT_EQ(resumed.status, 0) << resumed.out;
  EXPECT_TRUE(has(resumed.out, fmt::format("{} (variant, shape) pairs compiled, {} reused", 20 - first, first)))
      << resumed.out;
  EXPECT_FALSE(has(resumed.out, "NOT COMPILED")) << resumed.out;
  expect_each_pair_once();
}

// Rank 0 owns the search; when it dies (here on sending its first share), the other ranks hear
// its heartbeat stop and give up after AKO_MPI_RANK_TIMEOUT instead of waiting for ever, and
// mpirun returns (its 120 s timeout would say otherwise).
TEST_F(MpiTuneCli, RankZeroKilledMidSearchLetsTheOtherRanksStop) {
  const auto t0 = std::chrono::steady_clock::now();
  const Ran r = mpirun("--enable-recovery", "", "AKO_TEST_MPI_DIE_RANK=0 AKO_MPI_RANK_TIMEOUT=3");
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // (mpirun --enable-recovery itself exits 0 here, whatever the ranks returned.)
  EXPECT_NE(r.status, 124) << "mpirun hung until the test's timeout: " << r.out;
  EXPECT_LT(wall, 60.0) << r.out;
  EXPECT_TRUE(has(r.out, "rank 1: rank 0 silent for")) << r.out;
  EXPECT_TRUE(has(r.out, "rank 2: rank 0 silent for")) << r.out;
}

// ako and ako-worker must start where there is no libmpi (the GPU machine):
// only ako-mpi-tune links it.
TEST(MpiHandover, OnlyAkoMpiTuneLinksLibmpi) {
  for (const char* bin : {"ako", "ako-worker"}) {
    const Ran r = run_shell(std::string("ldd '" AKO_BINARY_DIR "/") + bin + "'");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_FALSE(has(r.out, "libmpi")) << bin << ":\n" << r.out;
  }
}

// A build without MPI has no ako-mpi-tune beside ako (stood for here by a copy of ako alone):
// `ako tune --mpi`, and `ako tune` under an MPI launcher, say so and how to get one.
TEST(MpiHandover, AnAkoWithoutAkoMpiTuneBesideItSaysSoAndHowToGetOne) {
  std::string tmpl = (fs::temp_directory_path() / "ako-nompi-test-XXXXXX").string();
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  const fs::path dir = tmpl;
  fs::copy_file(AKO_BINARY_DIR "/ako", dir / "ako");
  for (const std::string how : {"tune task rmsnorm --mpi", "tune task rmsnorm"}) {
    const std::string env = how.find("--mpi") == std::string::npos ? "OMPI_COMM_WORLD_SIZE=3 " : "";
    const Ran r = run_shell(env + "'" + (dir / "ako").string() + "' " + how);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(has(r.out, "this build of ako has no MPI")) << r.out;
    EXPECT_TRUE(has(r.out, "apt-get install openmpi-bin libopenmpi-dev")) << r.out;
    EXPECT_TRUE(has(r.out, "-DAKO_MPI=ON")) << r.out;
  }
  // One rank alone (OMPI_COMM_WORLD_SIZE=1) is a plain ako tune.
  const Ran alone = run_shell("OMPI_COMM_WORLD_SIZE=1 '" + (dir / "ako").string() + "' tune --help");
  EXPECT_EQ(alone.status, 0) << alone.out;
  EXPECT_TRUE(has(alone.out, "--gpus")) << alone.out;
  fs::remove_all(dir);
}

}  // namespace
