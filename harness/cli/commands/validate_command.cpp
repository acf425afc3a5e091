#include "cli/commands/validate_command.hpp"

#include <fmt/format.h>

#include "cli/commands/number_checks.hpp"
#include "cli/exit_codes.hpp"
#include "pipeline/workspace.hpp"
#include "validate/validate_table.hpp"

namespace ako::cli {

namespace {

void print_tail(const validate::ValidateRun& run) {
  if (!run.stderr_tail.empty()) fmt::print(stderr, "bench/validate stderr (last lines):\n{}\n", run.stderr_tail);
}

}  // namespace

int validate_command(const validate::ValidateRequest& req) {
  fmt::print("ako validate {}: workspace {}\n", req.model, req.root.string());
  std::fflush(stdout);
  const validate::ValidateRun run = validate::run_validate(req, [](const std::string& line) {
    fmt::print("  {}\n", line);
    std::fflush(stdout);
  });
  if (run.exit_code == validate::kPyUsage) {
    fmt::print(stderr, "ako validate: bench/validate refused the request (see above)\n");
    print_tail(run);
    return kExitUsage;
  }
  if (run.exit_code == validate::kPyNoGpu) {
    fmt::print(stderr,
               "ako validate: no verdict: torch or a CUDA device is missing (see above). It runs on the GPU machine "
               "with torch installed; scripts/gpu-validate.sh sets it up\n");
    return kExitUsage;
  }
  if (!run.result) {
    fmt::print(stderr, "ako validate: bench/validate ended with {} and wrote no result\n", run.ended);
    print_tail(run);
    return kExitUsage;
  }
  fmt::print("\n{}", validate::format_validate_text(*run.result));
  if (!req.json.empty()) fmt::print("wrote {}\n", req.json.string());
  if (run.exit_code == validate::kPyFail && run.result->passed()) {
    fmt::print(stderr, "ako validate: bench/validate exited 1 but its result says {}\n", run.result->verdict);
    return kExitIncorrect;
  }
  return run.result->passed() ? kExitOk : kExitIncorrect;
}

ValidateCli::ValidateCli(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "validate",
      "the model-level check of the ported kernels: on the GPU, a denoise step's stack of a model's DiT blocks at its\n"
      "real dims and token counts (random bf16 weights, attention through torch SDPA; AdaLN modulation, norms, QK-norm,\n"
      "RoPE and gated activations at their real sites) runs three ways: torch eager (the diffusers path), the engine's\n"
      "kernels (SGLang's as its runtime picks them: Triton / CuTe DSL from peers/sglang-0.5.23, its JIT QK-norm + RoPE,\n"
      "RMSNorm and QK-norm built from .sgl-proof through SGLang's own wrappers; torch where the runtime runs torch, as\n"
      "for the GELU, or where its kernel is in sgl-kernel / FlashInfer; every site listed with what ran), and the kernels\n"
      "`ako port` wrote (built and loaded through tvm-ffi from .sgl-proof, as SGLang's JIT does; a family not ported\n"
      "or not taken falls back to the engine, and every such site is listed). Per backend: step latency (median, CUDA events), GPU time in ako's families\n"
      "(torch.profiler), output vs torch; per family: the microbench speedup over the engine on the step's own calls\n"
      "and the speedup of its kernels in the step, with a verdict. Runs bench/validate with python3 ($AKO_PYTHON).\n"
      "Exit 0 every verdict passed; 1 a family fell back or its win did not transfer (in-step < 0.95 x microbench),\n"
      "or an output is beyond tolerance; 2 usage or environment error (unknown model, no torch or GPU).");
  cmd_->add_option("--model", req_.model, "flux1, flux2, qwen-image, hunyuan, wan13b, wan14b, zimage or ltx-video")->required();
  cmd_->add_option("--steps", req_.steps, "timed steps per backend and mode (the median is reported)")
      ->capture_default_str()->check(CLI::Range(1, 1000));
  cmd_->add_option("--warmup", req_.warmup, "untimed steps first")->capture_default_str()->check(CLI::Range(0, 100));
  cmd_->add_option("--blocks", req_.blocks,
                   "blocks of each kind in the step (0: the model's real count; the result says which ran)")
      ->capture_default_str()->check(CLI::Range(0, 100));
  cmd_->add_flag("--graph", req_.graph, "also time each backend's step replayed as a CUDA graph");
  cmd_->add_option("--json", req_.json, "write the result (schema ako.validate/1) here; `ako report --validate` reads it");
  cmd_->add_option("--payload", req_.payload,
                   "the ported kernels and SGLang's own JIT wrappers (default: .sgl-proof, from scripts/sglang-gpu-check.sh --prepare)");
  cmd_->add_option("--deps", req_.deps,
                   "folder of Python packages for SGLang's CuTe DSL kernels (scripts/gpu-sglang-deps.sh unpacks it)");
  cmd_->add_option("--backends", req_.backends, "a subset of torch,engine,ako (default: all three)");
  cmd_->add_option("--micro-samples", req_.micro_samples, "samples per call of the microbench (0: skip it)")
      ->check(CLI::Range(0, 10000));
  cmd_->add_option("--timeout", req_.timeout_s, "seconds before the run is stopped")->capture_default_str()
      ->check(ako::cli::kPositive);
  cmd_->add_flag("--cpu-smoke", req_.tiny,
                 "toy dims on the CPU, torch backend only: checks the block code runs (no timing, no verdict)");
  cmd_->add_option("--root", root_, "workspace root (default: nearest folder with tasks/ upward from here)");
}

std::optional<int> ValidateCli::dispatch() {
  if (!cmd_->parsed()) return std::nullopt;
  req_.root = pipeline::find_workspace(root_);
  if (req_.tiny) req_.device = "cpu";
  return validate_command(req_);
}

}  // namespace ako::cli
