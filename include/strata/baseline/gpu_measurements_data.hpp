// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The measurement set of `tests/data/measurements/gpu_measurements.csv`, compiled in, so the
/// paper report's `validation.*` rows need no file at run time. The text is the file's bytes
/// (`tests/baseline/measurements_io_test.cpp` checks they are equal); edit the file and
/// regenerate this header with `scripts/embed_measurements.sh`.

#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "strata/baseline/measurements_io.hpp"

namespace strata {
inline namespace v0 {

/// The CSV text of the published GPU measurement set.
template <class = void>
inline std::string_view published_gpu_measurements_csv() {
  static constexpr std::string_view text = R"strata_csv(# Published GPU serving measurements of preset models (README.md in this folder: sources, setups, terms).
# Columns: id,model,gpu,devices,batch,input_len,output_len,metric,value,unit,set,engine,precision,source,location,unknowns
# metric e2e_latency: wall time of one batch of `batch` prompts of input_len tokens each generating output_len tokens (s).
# metric output_tokens_per_s: output_len / that wall time at batch 1 (tokens/s).
# set: fit = used by the least-squares fit; check = held back. Rule (fixed before any error was computed): rows in file order alternate fit, check, fit, ...
id,model,gpu,devices,batch,input_len,output_len,metric,value,unit,set,engine,precision,source,location,unknowns
vllm2542-mixtral8x7b-h100-tp8-b1,Mixtral-8x7B,h100_sxm5,8,1,1000,50,e2e_latency,0.459,s,fit,vLLM main (Jan 2024) with the fused MoE kernel of the PR,BF16,github.com/vllm-project/vllm/pull/2542,PR description: benchmark_latency.py latency list under This PR (bs=1),H100 variant not stated (modelled as SXM5: 8-way TP implies HGX); dtype auto (checkpoint BF16)
vllm2542-mixtral8x7b-h100-tp8-b2,Mixtral-8x7B,h100_sxm5,8,2,1000,50,e2e_latency,0.515,s,check,vLLM main (Jan 2024) with the fused MoE kernel of the PR,BF16,github.com/vllm-project/vllm/pull/2542,PR description: benchmark_latency.py latency list under This PR (bs=2),as row 1
vllm2542-mixtral8x7b-h100-tp8-b4,Mixtral-8x7B,h100_sxm5,8,4,1000,50,e2e_latency,0.610,s,fit,vLLM main (Jan 2024) with the fused MoE kernel of the PR,BF16,github.com/vllm-project/vllm/pull/2542,PR description: benchmark_latency.py latency list under This PR (bs=4),as row 1
vllm2542-mixtral8x7b-h100-tp8-b8,Mixtral-8x7B,h100_sxm5,8,8,1000,50,e2e_latency,0.813,s,check,vLLM main (Jan 2024) with the fused MoE kernel of the PR,BF16,github.com/vllm-project/vllm/pull/2542,PR description: benchmark_latency.py latency list under This PR (bs=8),as row 1
vllm2542-mixtral8x7b-h100-tp8-b16,Mixtral-8x7B,h100_sxm5,8,16,1000,50,e2e_latency,1.044,s,fit,vLLM main (Jan 2024) with the fused MoE kernel of the PR,BF16,github.com/vllm-project/vllm/pull/2542,PR description: benchmark_latency.py latency list under This PR (bs=16),as row 1
vllm2542-mixtral8x7b-h100-tp8-b32,Mixtral-8x7B,h100_sxm5,8,32,1000,50,e2e_latency,1.489,s,check,vLLM main (Jan 2024) with the fused MoE kernel of the PR,BF16,github.com/vllm-project/vllm/pull/2542,PR description: benchmark_latency.py latency list under This PR (bs=32),as row 1
vllm2542-mixtral8x7b-h100-tp8-b64,Mixtral-8x7B,h100_sxm5,8,64,1000,50,e2e_latency,2.419,s,fit,vLLM main (Jan 2024) with the fused MoE kernel of the PR,BF16,github.com/vllm-project/vllm/pull/2542,PR description: benchmark_latency.py latency list under This PR (bs=64),as row 1
vllm3692-dbrx-h100-tp4-b8,DBRX,h100_sxm5,4,8,32,128,e2e_latency,3.2545747229084374,s,check,vLLM main (Mar 2024) with the DBRX Triton MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/3692,PR description: This PR block TP4 Batch size 8 Avg latency,input/output lengths not in the command: the benchmark_latency.py defaults 32/128 assumed; H100 variant not stated (SXM5 assumed); dtype auto (BF16)
vllm3692-dbrx-h100-tp4-b16,DBRX,h100_sxm5,4,16,32,128,e2e_latency,3.6656158388964832,s,fit,vLLM main (Mar 2024) with the DBRX Triton MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/3692,PR description: This PR block TP4 Batch size 16 Avg latency,as the TP4 batch 8 row
vllm3692-dbrx-h100-tp4-b32,DBRX,h100_sxm5,4,32,32,128,e2e_latency,3.978769546896219,s,check,vLLM main (Mar 2024) with the DBRX Triton MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/3692,PR description: This PR block TP4 Batch size 32 Avg latency,as the TP4 batch 8 row
vllm3692-dbrx-h100-tp4-b64,DBRX,h100_sxm5,4,64,32,128,e2e_latency,4.446144629847258,s,fit,vLLM main (Mar 2024) with the DBRX Triton MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/3692,PR description: This PR block TP4 Batch size 64 Avg latency,as the TP4 batch 8 row
vllm3692-dbrx-h100-tp8-b8,DBRX,h100_sxm5,8,8,32,128,e2e_latency,2.305059498753399,s,check,vLLM main (Mar 2024) with the DBRX Triton MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/3692,PR description: This PR block TP8 Batch size 8 Avg latency,as the TP4 batch 8 row
vllm3692-dbrx-h100-tp8-b16,DBRX,h100_sxm5,8,16,32,128,e2e_latency,2.564341889191419,s,fit,vLLM main (Mar 2024) with the DBRX Triton MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/3692,PR description: This PR block TP8 Batch size 16 Avg latency,as the TP4 batch 8 row
vllm3692-dbrx-h100-tp8-b32,DBRX,h100_sxm5,8,32,32,128,e2e_latency,2.7666698359698056,s,check,vLLM main (Mar 2024) with the DBRX Triton MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/3692,PR description: This PR block TP8 Batch size 32 Avg latency,as the TP4 batch 8 row
vllm3692-dbrx-h100-tp8-b64,DBRX,h100_sxm5,8,64,32,128,e2e_latency,3.3472835789062083,s,fit,vLLM main (Mar 2024) with the DBRX Triton MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/3692,PR description: This PR block TP8 Batch size 64 Avg latency,as the TP4 batch 8 row
vllm3240-mixtral8x7b-a100-tp2-b1,Mixtral-8x7B,a100_sxm4_80gb,2,1,1000,50,e2e_latency,0.7621450612053741,s,check,vLLM main (Mar 2024) with the TP2 fused MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/3240,PR description: This PR block BS 1 Avg latency,A100 memory size not stated (80 GB inferred: BF16 Mixtral does not fit 2 x 40 GB); SXM or PCIe not stated (SXM4 assumed); dtype auto (BF16)
vllm3240-mixtral8x7b-a100-tp2-b2,Mixtral-8x7B,a100_sxm4_80gb,2,2,1000,50,e2e_latency,1.0328856136795366,s,fit,vLLM main (Mar 2024) with the TP2 fused MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/3240,PR description: This PR block BS 2 Avg latency,as the BS 1 row
vllm3240-mixtral8x7b-a100-tp2-b4,Mixtral-8x7B,a100_sxm4_80gb,2,4,1000,50,e2e_latency,1.4489717756788014,s,check,vLLM main (Mar 2024) with the TP2 fused MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/3240,PR description: This PR block BS 4 Avg latency,as the BS 1 row
vllm3240-mixtral8x7b-a100-tp2-b8,Mixtral-8x7B,a100_sxm4_80gb,2,8,1000,50,e2e_latency,2.0341408042260447,s,fit,vLLM main (Mar 2024) with the TP2 fused MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/3240,PR description: This PR block BS 8 Avg latency,as the BS 1 row
vllm3240-mixtral8x7b-a100-tp2-b16,Mixtral-8x7B,a100_sxm4_80gb,2,16,1000,50,e2e_latency,2.893355064672651,s,check,vLLM main (Mar 2024) with the TP2 fused MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/3240,PR description: This PR block BS 16 Avg latency,as the BS 1 row
vllm3240-mixtral8x7b-a100-tp2-b32,Mixtral-8x7B,a100_sxm4_80gb,2,32,1000,50,e2e_latency,4.530912061399431,s,fit,vLLM main (Mar 2024) with the TP2 fused MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/3240,PR description: This PR block BS 32 Avg latency,as the BS 1 row
vllm3240-mixtral8x7b-a100-tp2-b64,Mixtral-8x7B,a100_sxm4_80gb,2,64,1000,50,e2e_latency,7.537396909691161,s,check,vLLM main (Mar 2024) with the TP2 fused MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/3240,PR description: This PR block BS 64 Avg latency,as the BS 1 row
vllm4002-mixtral8x22b-a100-tp4-b8,Mixtral-8x22B,a100_sxm4_80gb,4,8,32,128,e2e_latency,5.4268179705676935,s,fit,vLLM main (Apr 2024) with the Mixtral 8x22 fused MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/4002,PR description: TP4 with config bs 8 Avg latency,command not shown: benchmark_latency.py defaults 32/128 assumed; checkpoint not named (the preset's Mixtral-8x22B architecture); SXM4 assumed; dtype auto (BF16)
vllm4002-mixtral8x22b-a100-tp4-b16,Mixtral-8x22B,a100_sxm4_80gb,4,16,32,128,e2e_latency,6.107941208345195,s,check,vLLM main (Apr 2024) with the Mixtral 8x22 fused MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/4002,PR description: TP4 with config bs 16 Avg latency,as the TP4 bs 8 row
vllm4002-mixtral8x22b-a100-tp4-b32,Mixtral-8x22B,a100_sxm4_80gb,4,32,32,128,e2e_latency,6.893939550562451,s,fit,vLLM main (Apr 2024) with the Mixtral 8x22 fused MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/4002,PR description: TP4 with config bs 32 Avg latency,as the TP4 bs 8 row
vllm4002-mixtral8x22b-a100-tp8-b8,Mixtral-8x22B,a100_sxm4_80gb,8,8,32,128,e2e_latency,3.7083894722008455,s,check,vLLM main (Apr 2024) with the Mixtral 8x22 fused MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/4002,PR description: TP8 with config bs 8 Avg latency,as the TP4 bs 8 row
vllm4002-mixtral8x22b-a100-tp8-b16,Mixtral-8x22B,a100_sxm4_80gb,8,16,32,128,e2e_latency,4.047313968433688,s,fit,vLLM main (Apr 2024) with the Mixtral 8x22 fused MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/4002,PR description: TP8 with config bs 16 Avg latency,as the TP4 bs 8 row
vllm4002-mixtral8x22b-a100-tp8-b32,Mixtral-8x22B,a100_sxm4_80gb,8,32,32,128,e2e_latency,4.3906944,s,check,vLLM main (Apr 2024) with the Mixtral 8x22 fused MoE config of the PR,BF16,github.com/vllm-project/vllm/pull/4002,PR description: TP8 with config bs 32 Avg latency,as the TP4 bs 8 row; the stored text of the thread ends after these digits (no rounding applied)
qwen25-32b-a100-tp1-in1,Qwen2.5-32B,a100_sxm4_80gb,1,1,1,2048,output_tokens_per_s,22.13,tokens/s,fit,vLLM 0.6.3 (PyTorch 2.4.0; CUDA 12.1) with enforce_eager=True and gpu_memory_utilization=1.0 (Setting 1),BF16,github.com/QwenLM/Qwen2.5 docs/source/benchmark/speed_benchmark.rst,32B (vLLM) table: Qwen2.5-32B-Instruct input length 1 BF16 1 GPU,the page does not define Speed: read as generated tokens over total time (prompt + generation would give far larger figures at 30k input); A100 form factor not stated (SXM4 assumed); eager mode runs without CUDA graphs
qwen25-32b-a100-tp1-in6144,Qwen2.5-32B,a100_sxm4_80gb,1,1,6144,2048,output_tokens_per_s,21.05,tokens/s,check,vLLM 0.6.3 (PyTorch 2.4.0; CUDA 12.1) with enforce_eager=True and gpu_memory_utilization=1.0 (Setting 1),BF16,github.com/QwenLM/Qwen2.5 docs/source/benchmark/speed_benchmark.rst,32B (vLLM) table: input length 6144 BF16 1 GPU,as the input length 1 row
qwen25-32b-a100-tp1-in14336,Qwen2.5-32B,a100_sxm4_80gb,1,1,14336,2048,output_tokens_per_s,19.91,tokens/s,fit,vLLM 0.6.3 (PyTorch 2.4.0; CUDA 12.1) with enforce_eager=True and gpu_memory_utilization=1.0 (Setting 1),BF16,github.com/QwenLM/Qwen2.5 docs/source/benchmark/speed_benchmark.rst,32B (vLLM) table: input length 14336 BF16 1 GPU,as the input length 1 row
qwen25-32b-a100-tp2-in30720,Qwen2.5-32B,a100_sxm4_80gb,2,1,30720,2048,output_tokens_per_s,31.82,tokens/s,check,vLLM 0.6.3 (PyTorch 2.4.0; CUDA 12.1) default setting (gpu_memory_utilization=0.9; CUDA graphs),BF16,github.com/QwenLM/Qwen2.5 docs/source/benchmark/speed_benchmark.rst,32B (vLLM) table: input length 30720 BF16 2 GPUs,Speed read as in the input length 1 row; A100 interconnect not stated (NVLink assumed)
qwen25-32b-a100-tp2-in63488,Qwen2.5-32B,a100_sxm4_80gb,2,1,63488,2048,output_tokens_per_s,24.45,tokens/s,fit,vLLM 0.6.3 (PyTorch 2.4.0; CUDA 12.1) with max_model_len=65536 (Setting-64k; CUDA graphs),BF16,github.com/QwenLM/Qwen2.5 docs/source/benchmark/speed_benchmark.rst,32B (vLLM) table: input length 63488 BF16 2 GPUs,as the input length 30720 row; beyond 32k the model runs with YaRN rope scaling (no cost difference in the model)
qwen25-32b-a100-tp2-in129024,Qwen2.5-32B,a100_sxm4_80gb,2,1,129024,2048,output_tokens_per_s,14.31,tokens/s,check,vLLM 0.6.2 (new sample config: temperature 0.7; top_p 0.8; top_k 20),BF16,github.com/QwenLM/Qwen2.5 docs/source/benchmark/speed_benchmark.rst,32B (vLLM) table: input length 129024 BF16 2 GPUs,as the input length 63488 row
)strata_csv";
  return text;
}

/// The published GPU measurement set, parsed (`parse_measurements_csv`).
template <class = void>
inline std::vector<measurement> published_gpu_measurements() {
  return parse_measurements_csv(published_gpu_measurements_csv(), "gpu_measurements.csv");
}

}  // namespace v0
}  // namespace strata
