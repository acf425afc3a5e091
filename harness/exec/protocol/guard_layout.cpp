#include "exec/protocol/guard_layout.hpp"

#include <fmt/format.h>

#include "common/error.hpp"

namespace ako::exec {

uint64_t round_up(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

ArenaLayout layout_arena(const std::vector<uint64_t>& bytes, uint64_t guard) {
  if (guard == 0 || guard % kGuardAlign != 0)
    throw Error(fmt::format("guard size {} is not a positive multiple of {}", guard, kGuardAlign));
  ArenaLayout a;
  uint64_t cursor = 0;
  for (uint64_t b : bytes) {
    GuardedSlot s;
    s.before_offset = cursor;
    s.interior_offset = cursor + guard;
    s.bytes = b;
    s.after_offset = s.interior_offset + b;
    s.after_bytes = round_up(b, kGuardAlign) - b + guard;
    cursor = s.after_offset + s.after_bytes;
    a.slots.push_back(s);
  }
  a.total_bytes = cursor;
  return a;
}

uint8_t guard_byte(uint64_t salt, uint64_t i) {
  // SplitMix64 of (salt, i): not a constant, so a kernel writing a fixed value cannot match it.
  uint64_t z = salt + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<uint8_t>(z ^ (z >> 31));
}

std::string describe_guard_damage(const std::string& who, const GuardDamage& d) {
  if (d.before) {
    // Offset o in the guard before is (guard_bytes - o) bytes before the interior's first byte.
    const uint64_t far = d.guard_bytes - d.first, near = d.guard_bytes - d.last;
    return fmt::format("{} wrote before the start of buffer '{}' ({} byte{} changed, from {} to {} byte{} before its start)",
                       who, d.buffer, d.changed, d.changed == 1 ? "" : "s", far, near, near == 1 ? "" : "s");
  }
  // Offset o in the guard after is the (o + 1)-th byte after the interior's last byte.
  return fmt::format("{} wrote past the end of buffer '{}' ({} byte{} changed, from {} to {} byte{} after its end)",
                     who, d.buffer, d.changed, d.changed == 1 ? "" : "s", d.first + 1, d.last + 1,
                     d.last == 0 ? "" : "s");
}

}  // namespace ako::exec
