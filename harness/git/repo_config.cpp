#include "git/repo_config.hpp"

#include "git/handles.hpp"
#include "git/libgit2.hpp"

namespace ako::git {

std::optional<std::string> config_string(git_repository* repo, const char* key) {
  git_config* raw = nullptr;
  check(git_repository_config_snapshot(&raw, repo), "read the repository's config");
  const Config cfg(raw);
  const char* value = nullptr;
  const int rc = git_config_get_string(&value, cfg.get(), key);
  if (rc == GIT_ENOTFOUND) return std::nullopt;
  check(rc, std::string("read config ") + key);
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

}  // namespace ako::git
