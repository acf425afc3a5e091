#pragma once
// What travels between ako-mpi-tune's ranks, as JSON text: a share of requests (a variant's
// params and its shapes, by name) from rank 0 with what is left of `--time`, records
// (search/TUNING_DB.md's lines) back.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/tuner.hpp"
#include "task/spec.hpp"

namespace ako::mpi {

nlohmann::json requests_json(const std::vector<search::EvalRequest>& requests);
// Shapes are looked up in `spec` by name; throws ako::Error on one it lacks.
std::vector<search::EvalRequest> requests_from_json(const nlohmann::json& j, const task::TaskSpec& spec);

// A share: {"requests": [...], "time_left_s": S} (no time_left_s: no --time).
nlohmann::json work_json(const std::vector<search::EvalRequest>& requests, std::optional<double> time_left_s);

nlohmann::json records_json(const std::vector<search::DbRecord>& records);
std::vector<search::DbRecord> records_from_json(const nlohmann::json& j);

}  // namespace ako::mpi
