"""torch._dynamo.config: the tracing knobs programs set (cache_size_limit, suppress_errors ...),
with torch's defaults; see labkit/_config_flags.py."""
from .._config_flags import install

install(__name__, "torch._dynamo.config", dict(
    cache_size_limit=8, recompile_limit=8, accumulated_cache_size_limit=256,
    accumulated_recompile_limit=256, suppress_errors=False, optimize_ddp=True,
    capture_scalar_outputs=False, capture_dynamic_output_shape_ops=False, compiled_autograd=False,
    inline_inbuilt_nn_modules=True, automatic_dynamic_shapes=True, assume_static_by_default=True,
    verbose=False, verify_correctness=False, dynamic_shapes=True,
    force_parameter_static_shapes=True, specialize_int=False, skip_nnmodule_hook_guards=True,
    guard_nn_modules=True,
))
