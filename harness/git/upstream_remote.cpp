#include "git/upstream_remote.hpp"

#include "git/libgit2.hpp"

namespace ako::git {

namespace {

constexpr std::string_view kHeadsPrefix = "refs/heads/";

std::string fetch_failure(const std::string& url, const std::string& why) {
  return "fetch from upstream (" + url + ") failed: " + why +
         "\n  fix: check the URL and the network, or point upstream elsewhere: git remote set-url upstream <url>";
}

// What `git remote set-head upstream -a` does: upstream/HEAD follows the remote's HEAD.
void set_remote_head(git_repository* repo, const std::string& branch) {
  git_reference* raw = nullptr;
  check(git_reference_symbolic_create(&raw, repo, "refs/remotes/upstream/HEAD",
                                      ("refs/remotes/upstream/" + branch).c_str(), 1,
                                      "ako: upstream/HEAD follows the remote's HEAD"),
        "set refs/remotes/upstream/HEAD");
  git_reference_free(raw);
}

}  // namespace

UpstreamRemote ensure_upstream_remote(git_repository* repo, const std::string& configured_url,
                                      const std::string& configured_source) {
  if (auto existing = lookup_remote(repo, kUpstream)) {
    const char* url = git_remote_url(existing->get());
    return {std::move(*existing), url ? url : "", "existing remote", false};
  }
  std::string url = configured_url, source = configured_source;
  if (url.empty()) {
    const auto origin = lookup_remote(repo, "origin");
    if (!origin || !git_remote_url(origin->get()))
      throw GitError(
          "no 'upstream' remote, no 'origin' remote and no upstream URL configured\n"
          "  fix: git remote add upstream <url>  (or pass --upstream-url <url>, or git config ako.upstreamUrl <url>)");
    url = git_remote_url(origin->get());
    source = "origin's URL";
  }
  git_remote* raw = nullptr;
  check(git_remote_create(&raw, repo, kUpstream, url.c_str()), "add remote upstream " + url);
  return {Remote(raw), url, source, true};
}

std::optional<std::string> fetch_upstream(git_repository* repo, git_remote* remote) {
  const std::string url = git_remote_url(remote) ? git_remote_url(remote) : "";
  git_fetch_options opts = GIT_FETCH_OPTIONS_INIT;
  opts.prune = GIT_FETCH_PRUNE;
  // Connect once: the advertised HEAD (for set-head) and the download share the connection.
  if (git_remote_connect(remote, GIT_DIRECTION_FETCH, &opts.callbacks, &opts.proxy_opts, nullptr) < 0)
    throw GitError(fetch_failure(url, last_error_message()));
  std::optional<std::string> remote_head;
  {
    Buf head;
    const int rc = git_remote_default_branch(&head.buf, remote);
    if (rc == 0 && head.str().starts_with(kHeadsPrefix)) remote_head = head.str().substr(kHeadsPrefix.size());
    else if (rc < 0 && rc != GIT_ENOTFOUND) throw GitError(fetch_failure(url, last_error_message()));
  }
  if (git_remote_fetch(remote, nullptr, &opts, "ako: fetch upstream") < 0)
    throw GitError(fetch_failure(url, last_error_message()));
  git_remote_disconnect(remote);
  // Only follow a HEAD whose branch we now have; a remote HEAD naming a missing branch is ignored.
  if (remote_head && lookup_reference(repo, "refs/remotes/upstream/" + *remote_head)) {
    set_remote_head(repo, *remote_head);
    return remote_head;
  }
  return std::nullopt;
}

}  // namespace ako::git
