#pragma once
// The tuning landscape from a tuning database (harness/search/TUNING_DB.md): the records of one
// context (the device asked for, else the file's last), grouped into the shape classes of that
// device's config as `ako tune` groups them, each variant scored as the tuner scores it (the
// geometric mean of its medians over the class's shapes), the config's chosen params marked,
// and the variants that were wrong, refused by the static checks or not measured on every
// shape counted.
#include <filesystem>
#include <string>

#include "report/report_data.hpp"
#include "task/spec.hpp"

namespace ako::report {

// Installs the device's config into `spec` (as `ako tune --replay` does). Throws ako::Error
// when the file holds no record of the task.
Landscape load_landscape(task::TaskSpec& spec, const std::filesystem::path& db_file, const std::string& device = "");

}  // namespace ako::report
