"""torch.backends.cuda: the TF32 switch (`torch.backends.cuda.matmul.allow_tf32 = True`) is kept
for programs that set it; labkit's matmul on a GPU is CuPy's, in the dtype asked for."""


class _MatmulFlags:
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def is_built():
    from .. import cuda
    return cuda.is_available()
