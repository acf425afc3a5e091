#pragma once
// The task positional of every command that runs a task: `ako run task rmsnorm` reads
// naturally; `ako run rmsnorm` works too.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace ako::cli {

void add_task_positionals(CLI::App* cmd, std::vector<std::string>& words);
// The task name from the words; throws CLI::ValidationError on 'task' without a name.
std::string task_from_words(const std::vector<std::string>& words);

}  // namespace ako::cli
