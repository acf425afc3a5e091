#pragma once
// Guard bands around every buffer a candidate gets (the out-of-bounds write defence).
//
// The buffers of one input set live in one allocation (an arena). Each buffer's interior is
// 256-byte aligned and sits between two guards filled with a known byte pattern:
//
//   | guard before (kGuardBytes) | interior (bytes) | guard after (padding to 256 + kGuardBytes) | next buffer ...
//
// The guard after starts at the first byte past the interior, so a write into the alignment
// padding (the bytes a 256-byte allocator would have hidden) is caught too. After a launch the
// worker checks every guard on the GPU; a changed byte names the buffer, the side and the distance.
#include <cstdint>
#include <string>
#include <vector>

namespace ako::exec {

inline constexpr uint64_t kGuardAlign = 256;           // interior alignment (cuMemAlloc gives 256 too)
inline constexpr uint64_t kGuardBytes = 64 * 1024;     // per side, beyond the padding

struct GuardedSlot {
  uint64_t before_offset = 0;   // first byte of the guard before
  uint64_t interior_offset = 0; // what the kernel gets (arena base + this)
  uint64_t bytes = 0;           // interior size
  uint64_t after_offset = 0;    // interior_offset + bytes
  uint64_t after_bytes = 0;     // padding to the alignment + the guard
};

struct ArenaLayout {
  std::vector<GuardedSlot> slots;
  uint64_t total_bytes = 0;
};

uint64_t round_up(uint64_t n, uint64_t to);

// One slot per entry of `bytes`, in order. `guard` must be a multiple of kGuardAlign.
ArenaLayout layout_arena(const std::vector<uint64_t>& bytes, uint64_t guard = kGuardBytes);

// Byte i of a guard region seeded with `salt` (what ako_guard_fill writes; support_kernels.cuh
// computes the same function).
uint8_t guard_byte(uint64_t salt, uint64_t i);

// What a guard check found in one guard: changed bytes and the first / last changed offset
// from the start of the guard region.
struct GuardDamage {
  std::string buffer;
  bool before = false;          // the guard before the buffer (else after)
  uint64_t changed = 0;
  uint64_t first = 0, last = 0;
  uint64_t guard_bytes = 0;     // length of that guard region
};

// "solution wrote past the end of buffer 'out' (16 bytes changed, from 1 to 16 bytes after its end)"
// or "... before the start of buffer 'x' (2 bytes changed, from 2 to 1 byte before its start)".
std::string describe_guard_damage(const std::string& who, const GuardDamage& d);

}  // namespace ako::exec
