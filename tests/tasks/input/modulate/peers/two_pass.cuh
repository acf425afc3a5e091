#pragma once
// Baseline of the modulation capability task: the reference kernel under a baseline's own
// program (a baseline needs a file of its own; this adapter is it), so that baselines with
// typed axes and per-buffer dtype placeholders are exercised.
#include "../modulate.cuh"
