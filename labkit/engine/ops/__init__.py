"""The primitive ops. Importing this package attaches every op to Tensor as a method."""
from . import (activation, arithmetic, compare, conv, convert, cross_entropy, embedding,  # noqa
               erf, fold, foreach, index, inplace, join, linalg, linear, mse_loss, nll_loss,
               pool, reduce, select, shape, softmax, unary)
from . import (counting, diag, einsum, factories, find, fused, gather, inplace_unary,  # noqa
               introspect, layout, math, norm, products, sampling, scan, sort, stats, tri,
               windows, broadcast, scatter_reduce, index_put, stacking, search,
               products_extra, finite, linalg_solve, api_extras, special_math,
               cumulative_extra, detach, shape_inplace, deepcopy)
from . import aliases, hyperbolic, products_vec  # noqa: F401,E402  (torch's other names; more products)
from . import complex as _complex  # noqa: E402  (real/imag, view_as_real, polar ...)
_complex.allow_dtype_agnostic()
from . import construct, covariance, gamma, split_extra, resize  # noqa: F401,E402
from . import share, storage  # noqa: F401,E402  (share_memory_, storage, untyped_storage)
from . import bitwise_inplace, python_protocol  # noqa: F401,E402  (mask &= m; value in x)
from . import float_parts, integer_math, renorm, scatter_into, apply_callable  # noqa: F401,E402
from . import as_strided  # noqa: F401,E402
from . import bessel  # noqa: F401,E402  (i0, i0_)
from . import tensor_more  # noqa: F401,E402  (adjoint, cauchy_, index_reduce, lu ...)
from .keywords import install_methods as _install_methods
_install_methods()
