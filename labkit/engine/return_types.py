"""The named tuples ops return (torch.return_types): x.max(dim) gives return_types.max(values,
indices), sorted into its fields by name or by position, and prints as torch prints it,

    torch.return_types.max(
    values=tensor([2., 5.]),
    indices=tensor([2, 2]))

with labkit in place of torch."""
from collections import namedtuple


def _structseq(name, fields):
    def __repr__(self):
        body = ",\n".join(f"{k}={v!r}" for k, v in zip(self._fields, self))
        return f"labkit.return_types.{name}(\n{body})"
    cls = type(name, (namedtuple(name, fields),), {"__slots__": (), "__repr__": __repr__,
                                                   "__str__": __repr__})
    cls.__module__ = "labkit.return_types"
    return cls


max = _structseq("max", ["values", "indices"])
min = _structseq("min", ["values", "indices"])
sort = _structseq("sort", ["values", "indices"])
topk = _structseq("topk", ["values", "indices"])
kthvalue = _structseq("kthvalue", ["values", "indices"])
mode = _structseq("mode", ["values", "indices"])
median = _structseq("median", ["values", "indices"])
nanmedian = _structseq("nanmedian", ["values", "indices"])
cummax = _structseq("cummax", ["values", "indices"])
cummin = _structseq("cummin", ["values", "indices"])
aminmax = _structseq("aminmax", ["min", "max"])
frexp = _structseq("frexp", ["mantissa", "exponent"])
histogram = _structseq("histogram", ["hist", "bin_edges"])
linalg_eigh = _structseq("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_slogdet = _structseq("linalg_slogdet", ["sign", "logabsdet"])
linalg_cholesky_ex = _structseq("linalg_cholesky_ex", ["L", "info"])
linalg_inv_ex = _structseq("linalg_inv_ex", ["inverse", "info"])
linalg_svd = _structseq("linalg_svd", ["U", "S", "Vh"])
svd = _structseq("svd", ["U", "S", "V"])
linalg_qr = _structseq("linalg_qr", ["Q", "R"])
qr = _structseq("qr", ["Q", "R"])
linalg_lstsq = _structseq("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
