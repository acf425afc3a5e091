#include "mpi/rank_server.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <future>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands/tune_measurer.hpp"
#include "mpi/rank_lane.hpp"
#include "mpi/work_messages.hpp"
#include "pipeline/workspace.hpp"
#include "task/spec.hpp"

namespace ako::mpi {

namespace {

using nlohmann::json;

// The tests' hook: AKO_TEST_MPI_DIE_RANK=r makes rank r SIGKILL itself on receiving its
// AKO_TEST_MPI_DIE_AT_WORK-th (default 1st) work message: a host lost in the middle of a batch.
void maybe_die(int rank, int works) {
  const char* r = std::getenv("AKO_TEST_MPI_DIE_RANK");
  const char* at = std::getenv("AKO_TEST_MPI_DIE_AT_WORK");
  if (r && std::atoi(r) == rank && works == (at ? std::atoi(at) : 1)) std::raise(SIGKILL);
}

json evaluate_and_beat(MpiLink& link, search::Evaluator& evaluator, const std::vector<search::EvalRequest>& requests) {
  auto result = std::async(std::launch::async, [&] { return evaluator.evaluate(requests); });
  json reply;
  while (result.wait_for(std::chrono::duration<double>(kBeatSeconds)) != std::future_status::ready)
    link.send(0, kBeat, "");
  try {
    reply["records"] = records_json(result.get());
  } catch (const search::LaneLost& e) {
    reply["records"] = records_json(e.done);
    reply["lost"] = e.what();
  } catch (const std::exception& e) {
    reply["records"] = json::array();
    reply["lost"] = e.what();
  }
  return reply;
}

// Rank 0's --time, as what was left of it when the share was sent: no compile of this rank's
// GPUs starts past it (the variants not compiled are recorded nowhere; rank 0 is told how many).
void stop_compiles_at(cli::Measurer& m, std::optional<double> time_left_s) {
  using clock = std::chrono::steady_clock;
  std::function<bool()> stop;
  if (time_left_s) {
    const auto until = clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(*time_left_s));
    stop = [until] { return clock::now() >= until; };
  }
  for (auto& g : m.gpus) g->set_compile_stop(stop);
}

}  // namespace

bool serve_rank(MpiLink& link, const cli::TuneCommandOptions& opt) {
  std::optional<cli::Measurer> measurer;
  std::optional<task::TaskSpec> spec;
  json hello{{"host", MpiLink::host_name()}};
  try {
    const auto root = pipeline::find_workspace(opt.root);
    spec = task::load_task(root, opt.task);
    measurer = cli::gpu_measurer(opt, *spec, root, true);
    if (!measurer) throw Error("no GPU on this rank");
    cli::finish_lanes(*measurer);
    hello["context"] = measurer->ctx.key();
    hello["lanes"] = measurer->lanes();
  } catch (const std::exception& e) {
    hello["error"] = e.what();
  }
  link.send(0, kHello, hello.dump());
  // Rank 0 heartbeats every rank while the search runs: silence past the timeout means it is
  // gone, and with it the search; waiting on would hang this rank (and mpirun) for good.
  const double timeout = rank_timeout_s();
  auto heard = std::chrono::steady_clock::now();
  auto give_up_if_silent = [&] {
    const double silent = std::chrono::duration<double>(std::chrono::steady_clock::now() - heard).count();
    if (silent > timeout)
      throw Error(fmt::format("rank 0 silent for {:.0f} s (no heartbeat; AKO_MPI_RANK_TIMEOUT): the rank that owns "
                              "the search is gone, so this rank stops (a rerun resumes from the tuning database)",
                              silent));
  };
  int works = 0;
  for (;;) {
    auto msg = link.poll(0);
    if (!msg) {
      give_up_if_silent();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    heard = std::chrono::steady_clock::now();
    if (msg->first == kStop) return json::parse(msg->second).value("finalize", true);
    if (msg->first != kWork) continue;
    maybe_die(link.rank(), ++works);
    std::string reply;
    try {
      if (!measurer) throw Error(hello.value("error", "this rank has no lanes"));
      const json work = json::parse(msg->second);
      stop_compiles_at(*measurer, work.contains("time_left_s") ? std::optional<double>(work["time_left_s"].get<double>())
                                                               : std::nullopt);
      const size_t not_started_before = measurer->not_started(), notes_before = measurer->drift_notes().size();
      json r = evaluate_and_beat(link, *measurer->evaluator, requests_from_json(work.at("requests"), *spec));
      r["not_started"] = measurer->not_started() - not_started_before;
      // This rank's stdout goes nowhere: its slow windows (drift sentinels) are rank 0's to say.
      const auto notes = measurer->drift_notes();
      r["drift_notes"] = std::vector<std::string>(notes.begin() + static_cast<long>(std::min(notes_before, notes.size())),
                                                  notes.end());
      reply = r.dump();
    } catch (const std::exception& e) {
      reply = json{{"records", json::array()}, {"lost", e.what()}}.dump();
    }
    if (!link.send_within(0, kDone, reply, timeout)) give_up_if_silent();
    heard = std::chrono::steady_clock::now();  // busy evaluating is not silence
  }
}

}  // namespace ako::mpi
