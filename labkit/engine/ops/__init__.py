"""The primitive ops. Importing this package attaches every op to Tensor as a method."""
from . import (arithmetic, compare, convert, index, inplace, join, linalg, reduce, select,  # noqa
               shape, softmax, unary)
