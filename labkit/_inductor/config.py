"""torch._inductor.config: the compiler knobs LM training scripts set (gpt-fast, llm.c,
modded-nanogpt), with torch's defaults; see labkit/_config_flags.py."""
from .._config_flags import install

install(__name__, "torch._inductor.config", dict(
    coordinate_descent_tuning=False, coordinate_descent_check_all_directions=False,
    fx_graph_cache=True, freezing=False, max_autotune=False, max_autotune_gemm=False,
    epilogue_fusion=True, aggressive_fusion=False, shape_padding=True,
    force_fuse_int_mm_with_mul=False, use_mixed_mm=True, permute_fusion=False,
    benchmark_kernel=False, compile_threads=2, cpp_wrapper=False, debug=False,
    fallback_random=False, emulate_precision_casts=False,
    triton=dict(cudagraphs=False, unique_kernel_names=True, cudagraph_trees=True,
                autotune_pointwise=True, max_tiles=None),
))
