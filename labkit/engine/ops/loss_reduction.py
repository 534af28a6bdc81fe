"""torch's old loss flags, size_average and reduce, read as torch reads them: older tutorials
still pass them (F.nll_loss(out, y, size_average=False) to sum a test set's loss)."""
import warnings


def reduction_of(size_average, reduce, reduction, stacklevel=3):
    """The reduction the flags ask for (they override `reduction`, with torch's warning)."""
    if size_average is None and reduce is None:
        return reduction
    new = "none" if reduce is False else "sum" if size_average is False else "mean"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{new}' instead.", UserWarning, stacklevel=stacklevel)
    return new
