#include "task/entry_view.hpp"

#include <algorithm>

namespace ako::task {

const BufferSpec* find_buffer(const TaskSpec& s, const std::string& n) {
  for (const auto& b : s.buffers)
    if (b.name == n) return &b;
  return nullptr;
}

const BufferSpec& storage_of(const TaskSpec& s, const BufferSpec& b) {
  if (!b.view) return b;
  const BufferSpec* storage = find_buffer(s, b.view->of);
  return storage ? *storage : b;
}

bool from_storage(const TaskSpec& s, const BufferSpec& b) {
  return b.view && std::count(s.solution.args.begin(), s.solution.args.end(), b.view->of) > 0;
}

std::vector<const BufferSpec*> entry_tensors(const TaskSpec& s) {
  std::vector<const BufferSpec*> out;
  for (const auto& a : s.solution.args)
    if (const BufferSpec* b = find_buffer(s, a); b && !from_storage(s, *b)) out.push_back(b);
  return out;
}

std::vector<std::string> presence_exprs(const TaskSpec& s, const BufferSpec& b) {
  std::vector<std::string> out;
  if (!b.present_if.empty()) out.push_back(b.present_if);
  const BufferSpec& storage = storage_of(s, b);
  if (b.view && &storage != &b && !storage.present_if.empty()) out.push_back(storage.present_if);
  return out;
}

bool present(const TaskSpec& s, const BufferSpec& b, const ExprEnv& env) {
  const std::vector<std::string> conditions = presence_exprs(s, b);
  return std::all_of(conditions.begin(), conditions.end(), [&](const std::string& p) { return eval_bool(p, env); });
}

namespace {

bool mentions(const std::string& expr, const std::string& id) { return expr_identifiers(expr).count(id) > 0; }

}  // namespace

std::vector<std::string> unseen_dims(const TaskSpec& s, const ExprEnv& env) {
  // Two probe values, as the port decides "depends on it" (port/binding.cpp).
  constexpr int64_t kProbe1 = 1000003, kProbe2 = 999983;
  const std::vector<const BufferSpec*> tensors = entry_tensors(s);
  std::vector<std::string> out;
  for (const auto& d : s.dims) {
    bool named = false, seen = false;
    for (const BufferSpec* b : tensors) {
      if (std::none_of(b->shape.begin(), b->shape.end(), [&](const std::string& e) { return mentions(e, d); }))
        continue;
      named = true;
      if (!present(s, *b, env)) continue;
      ExprEnv probe = env;
      for (const auto& e : b->shape) {
        if (!mentions(e, d)) continue;
        probe[d] = kProbe1;
        const int64_t v1 = eval_int(e, probe);
        probe[d] = kProbe2;
        if (v1 != eval_int(e, probe)) seen = true;
      }
      if (seen) break;
    }
    if (named && !seen) out.push_back(d);
  }
  return out;
}

ExprEnv as_entry_sees(const TaskSpec& s, ExprEnv env) {
  for (const auto& d : unseen_dims(s, env)) env[d] = 1;
  return env;
}

}  // namespace ako::task
