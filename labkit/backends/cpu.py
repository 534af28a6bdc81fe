"""torch.backends.cpu: the SIMD level torch's kernels were built for; labkit's are numpy's."""


def get_cpu_capability():
    return "DEFAULT"
