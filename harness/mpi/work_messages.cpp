#include "mpi/work_messages.hpp"

#include "common/error.hpp"

namespace ako::mpi {

using nlohmann::json;

json requests_json(const std::vector<search::EvalRequest>& requests) {
  json out = json::array();
  for (const auto& r : requests) {
    json shapes = json::array();
    for (const auto* s : r.shapes) shapes.push_back(s->name);
    out.push_back({{"params", r.params}, {"shapes", shapes}});
  }
  return out;
}

std::vector<search::EvalRequest> requests_from_json(const json& j, const task::TaskSpec& spec) {
  std::vector<search::EvalRequest> out;
  for (const auto& r : j) {
    search::EvalRequest req{r.at("params").get<search::Params>(), {}};
    for (const auto& name : r.at("shapes")) {
      const auto it = std::find_if(spec.shapes.begin(), spec.shapes.end(),
                                   [&](const task::ShapeSpec& s) { return s.name == name.get<std::string>(); });
      if (it == spec.shapes.end()) throw Error("task " + spec.name + " has no shape " + name.get<std::string>());
      req.shapes.push_back(&*it);
    }
    out.push_back(std::move(req));
  }
  return out;
}

json work_json(const std::vector<search::EvalRequest>& requests, std::optional<double> time_left_s) {
  json out{{"requests", requests_json(requests)}};
  if (time_left_s) out["time_left_s"] = *time_left_s;
  return out;
}

json records_json(const std::vector<search::DbRecord>& records) {
  json out = json::array();
  for (const auto& r : records) out.push_back(search::to_json(r));
  return out;
}

std::vector<search::DbRecord> records_from_json(const json& j) {
  std::vector<search::DbRecord> out;
  for (const auto& r : j) out.push_back(search::record_from_json(r));
  return out;
}

}  // namespace ako::mpi
