#include "cli/commands/task_words.hpp"

namespace ako::cli {

void add_task_positionals(CLI::App* cmd, std::vector<std::string>& words) {
  cmd->add_option("task", words, "'task NAME' or just NAME (a folder under tasks/, or a task.json path)")
      ->required()
      ->expected(1, 2);
}

std::string task_from_words(const std::vector<std::string>& words) {
  if (words.size() == 2) {
    if (words[0] != "task")
      throw CLI::ValidationError("task", "expected 'task NAME', got '" + words[0] + " " + words[1] + "'");
    return words[1];
  }
  if (words[0] == "task") throw CLI::ValidationError("task", "missing the task name after 'task'");
  return words[0];
}

}  // namespace ako::cli
