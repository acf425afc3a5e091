#include "mpi/rank_lane.hpp"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mpi/work_messages.hpp"

namespace ako::mpi {

bool RankRoster::any_lost() const {
  for (bool l : lost)
    if (l) return true;
  return false;
}

double rank_timeout_s() {
  const char* v = std::getenv("AKO_MPI_RANK_TIMEOUT");
  const double t = v && *v ? std::atof(v) : 0;
  return t > 0 ? t : 60;
}

RankLane::RankLane(MpiLink& link, int rank, double timeout_s, RankRoster& roster,
                   std::function<std::optional<double>()> time_left_s)
    : link_(link), rank_(rank), timeout_s_(timeout_s), roster_(roster), time_left_s_(std::move(time_left_s)) {}

std::vector<search::DbRecord> RankLane::evaluate(const std::vector<search::EvalRequest>& batch) {
  using clock = std::chrono::steady_clock;
  const auto lose = [&](const std::string& why, std::vector<search::DbRecord> done) {
    roster_.lost[static_cast<size_t>(rank_)] = true;
    return search::LaneLost(why, std::move(done));
  };
  try {
    link_.send(rank_, kWork, work_json(batch, time_left_s_ ? time_left_s_() : std::nullopt).dump());
  } catch (const Error& e) {
    throw lose(e.what(), {});
  }
  // The tests' hook: AKO_TEST_MPI_DIE_RANK=0 makes rank 0 SIGKILL itself once it has sent its
  // first share (the owner of the search lost mid-batch; rank_server.cpp hooks the other ranks).
  if (const char* r = std::getenv("AKO_TEST_MPI_DIE_RANK"); r && std::string(r) == "0") std::raise(SIGKILL);
  auto heard = clock::now();
  for (;;) {
    while (auto msg = link_.poll(rank_)) {
      heard = clock::now();
      if (msg->first != kDone) continue;  // a heartbeat
      const auto j = nlohmann::json::parse(msg->second);
      std::vector<search::DbRecord> records = records_from_json(j.at("records"));
      roster_.not_started += j.value("not_started", size_t{0});
      if (j.contains("drift_notes")) {
        const std::lock_guard<std::mutex> lock(roster_.mutex);
        for (const auto& n : j["drift_notes"]) roster_.drift_notes.push_back(fmt::format("rank {}: {}", rank_, n.get<std::string>()));
      }
      if (const std::string why = j.value("lost", ""); !why.empty())
        throw lose(fmt::format("rank {}: {}", rank_, why), std::move(records));
      return records;
    }
    const double silent = std::chrono::duration<double>(clock::now() - heard).count();
    if (silent > timeout_s_)
      throw lose(fmt::format("rank {} silent for {:.0f} s (no heartbeat; AKO_MPI_RANK_TIMEOUT): taken for dead", rank_,
                             silent),
                 {});
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace ako::mpi
