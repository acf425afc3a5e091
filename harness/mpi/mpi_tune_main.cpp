// ako-mpi-tune: `ako tune` as the ranks of an MPI job, one rank per host (mpirun -np N ako tune
// --mpi ..., which execs this; or mpirun -np N ako-mpi-tune tune ...). Same command line as
// `ako tune`. Rank 0 owns the search and the tuning database: its own GPUs are lanes, and so is
// every other rank, which evaluates (compiles, validates, times) the shares rank 0 sends it on
// its own host's GPUs (--gpus there too) and sends the records back. A rank that dies costs only
// the variants it had in hand: rank 0 hears no heartbeat, sends them elsewhere, carries on.
// Rank 0 heartbeats the others in turn; should it die, they stop after AKO_MPI_RANK_TIMEOUT
// instead of waiting for ever (a rerun resumes from the database).
// The only binary that links libmpi (ako must start where there is none: build_notes.md).
#include <atomic>
#include <chrono>
#include <csignal>
#include <functional>
#include <cstdio>
#include <optional>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands/tune_cli.hpp"
#include "cli/commands/tune_measurer.hpp"
#include "cli/exit_codes.hpp"
#include "common/error.hpp"
#include "exec/client/child_groups.hpp"
#include "mpi/rank_lane.hpp"
#include "mpi/rank_server.hpp"
#include "search/time_budget.hpp"

namespace {

using namespace ako;
using nlohmann::json;

// Rank 0: every other rank's hello, each within the timeout; a rank whose records would be of
// another context (another GPU model, driver, NVRTC...) is left out, saying why.
void add_rank_lanes(mpi::MpiLink& link, mpi::RankRoster& roster, cli::Measurer& m,
                    const std::function<std::optional<double>()>& time_left_s) {
  const double timeout = mpi::rank_timeout_s();
  for (int r = 1; r < link.size(); ++r) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
    std::optional<std::pair<mpi::Tag, std::string>> msg;
    while (!(msg = link.poll(r)) && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!msg || msg->first != mpi::kHello) {
      roster.lost[static_cast<size_t>(r)] = true;
      fmt::print("rank {}: no hello within {:.0f} s; left out\n", r, timeout);
      continue;
    }
    const json hello = json::parse(msg->second);
    const std::string host = hello.value("host", "?");
    if (hello.contains("error")) {
      fmt::print("rank {} ({}): cannot tune: {}; left out\n", r, host, hello["error"].get<std::string>());
      continue;
    }
    if (hello.value("context", "") != m.ctx.key()) {
      fmt::print("rank {} ({}): its measurements would not be comparable with rank 0's (another GPU model, driver, "
                 "NVRTC or source): left out\n  rank 0: {}\n  rank {}: {}\n",
                 r, host, m.ctx.key(), r, hello.value("context", ""));
      continue;
    }
    m.remote.push_back(std::make_unique<mpi::RankLane>(link, r, timeout, roster, time_left_s));
    m.lane_names.push_back(fmt::format("rank {} ({}, {} lane(s))", r, host, hello.value("lanes", 0)));
  }
  fmt::print("MPI: {} ranks; lanes: {}\n", link.size(), [&] {
    std::string s;
    for (const auto& n : m.lane_names) s += (s.empty() ? "" : ", ") + n;
    return s;
  }());
}

}  // namespace

int main(int argc, char** argv) {
  ako::exec::kill_children_on_termination_signals();
  std::optional<mpi::MpiLink> link;
  try {
    link.emplace(&argc, &argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "ako-mpi-tune: {}\n", e.what());
    return cli::kExitUsage;
  }
  CLI::App app{"ako-mpi-tune: ako tune as the ranks of an MPI job (mpirun -np N ako tune --mpi ...)", "ako-mpi-tune"};
  app.require_subcommand(1);
  cli::TuneCli tune(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = link->rank() == 0 ? app.exit(e) : 0;
    link->finalize();
    return e.get_exit_code() == 0 ? code : cli::kExitUsage;
  }
  cli::TuneCommandOptions opt;
  try {
    opt = tune.parsed();
  } catch (const std::exception& e) {
    if (link->rank() == 0) fmt::print(stderr, "ako-mpi-tune: {}\n", e.what());
    link->finalize();
    return cli::kExitUsage;
  }
  if (link->rank() != 0) {
    // Its own lanes' notes and headers are rank 0's business; a rank prints its errors only.
    std::fflush(stdout);
    if (!std::freopen("/dev/null", "w", stdout)) return cli::kExitUsage;
    try {
      const bool finalize = mpi::serve_rank(*link, opt);
      if (finalize) link->finalize();
      return cli::kExitOk;
    } catch (const std::exception& e) {  // rank 0 gone: no MPI_Finalize, it would wait for it
      fmt::print(stderr, "ako-mpi-tune rank {}: {}\n", link->rank(), e.what());
      return cli::kExitUsage;  // no verdict: the environment (rank 0) failed
    }
  }

  // Every other rank gives up when rank 0 falls silent (serve_rank): a heartbeat to each, every
  // kBeatSeconds, from now until the stop messages.
  std::atomic<bool> beating{true};
  std::thread heartbeat([&] {
    while (beating) {
      for (int r = 1; r < link->size(); ++r) link->send_and_forget(r, mpi::kBeat, "");
      for (int i = 0; i < 10 && beating; ++i)
        std::this_thread::sleep_for(std::chrono::duration<double>(mpi::kBeatSeconds / 10));
    }
  });
  mpi::RankRoster roster;
  roster.lost.assign(static_cast<size_t>(link->size()), false);
  // --time's clock starts here, a moment before tune_command's own: the other ranks stop
  // starting compiles no later than rank 0 does.
  const auto started = std::chrono::steady_clock::now();
  std::optional<double> time_budget_s;
  try {
    if (!opt.time.empty()) time_budget_s = search::parse_duration(opt.time);
  } catch (const std::exception&) {  // tune_command says what is wrong with it
  }
  const std::function<std::optional<double>()> time_left_s = [&]() -> std::optional<double> {
    if (!time_budget_s) return std::nullopt;
    return *time_budget_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  opt.add_lanes = [&](cli::Measurer& m) { add_rank_lanes(*link, roster, m, time_left_s); };
  int code = cli::kExitUsage;
  try {
    code = cli::tune_command(opt);
  } catch (const std::exception& e) {
    fmt::print(stderr, "ako-mpi-tune: {}\n", e.what());
  }
  for (const auto& n : roster.drift_notes) fmt::print("drift: {}\n", n);
  if (roster.not_started > 0)
    fmt::print("NOT COMPILED on the other ranks: {} variant(s): the time budget ran out before their compile started; "
               "nothing is recorded for them, so a resumed tune asks them again\n",
               roster.not_started.load());
  std::fflush(stdout);
  beating = false;
  heartbeat.join();
  // A lost rank cannot take part in MPI_Finalize (Open MPI would wait for it): then nobody does.
  const bool finalize = !roster.any_lost();
  for (int r = 1; r < link->size(); ++r) {
    const std::string stop = json{{"finalize", finalize}}.dump();
    if (roster.lost[static_cast<size_t>(r)])
      link->send_and_forget(r, mpi::kStop, stop);
    else
      link->send(r, mpi::kStop, stop);
  }
  if (finalize) link->finalize();
  return code;
}
