"""The op table (engine/ops/table.py): every op, every backend. Each backend (the numpy code
generator, the CUDA kernel generator, ONNX export, jvp, vmap) either has the op's form or says
by name that it has none; and a toy op declared only through the table is fused, compiled to
CUDA C, exported to ONNX and transformed by jvp and vmap, which proves every backend reads it."""
import ast
import pathlib
import re
import types
import warnings

import numpy as np
import pytest

import labkit
from labkit import jit
from labkit.engine.function import Function
from labkit.engine.ops import compare, rules, table
from labkit.jit.cuda_kernel import expression, kernel_source
from labkit.jit.emit import calls
from labkit.jit.ir import Value

OPS = table.ops()
ID = [f"{c.__module__.rsplit('.', 1)[-1]}.{c.__qualname__}" for c in OPS]


def _fields(text):
    return {int(i) for i in re.findall(r"\{(\d+)\}", text)}


def test_the_table_lists_the_engine_ops():
    names = {c.__name__ for c in OPS}
    assert {"Add", "MatMul", "Conv2d", "Eq", "LogicalXor", "Where", "Sum"} <= names
    assert all(table.name(c) for c in OPS)


@pytest.mark.parametrize("cls", OPS, ids=ID)
def test_each_backend_supports_the_op_or_names_it(cls):
    name = table.name(cls)
    for backend, default in table.BACKENDS.items():
        entry = table.lookup(cls, backend)
        if entry is table.UNSUPPORTED:
            with pytest.raises(table.Unsupported, match=re.escape(repr(name))) as e:
                table.require(cls, backend)
            assert {"cuda": "CUDA", "onnx": "ONNX"}[backend] in str(e.value)
        elif entry is table.CALL:
            assert backend == "numpy" and callable(cls.forward)
        elif entry is table.FALLBACK:
            assert backend in ("jvp", "vmap")
        elif backend == "numpy":
            assert isinstance(entry, table.Numpy)
        elif backend == "onnx":
            assert isinstance(entry, str) and onnx_has(entry) or callable(entry)
        else:
            assert isinstance(entry, str) or callable(entry), (backend, entry)


def onnx_has(op):
    return pytest.importorskip("onnx").defs.has(op)


_NAMES_ONLY = {"__module__", "__qualname__", "__doc__", "__firstlineno__", "__static_attributes__",
               "node_name", "op_name", "_node_cls", "number_edges"}   # names and graph listing


@pytest.mark.parametrize("cls", OPS, ids=ID)
def test_an_inherited_entry_belongs_to_a_subclass_that_differs_only_by_name(cls):
    """A subclass that keeps its parent's forward inherits its entries; one that changes what
    forward computes through a class attribute (Minimum's pick, Ceil's fn) declares its own."""
    changed = set(vars(cls)) - _NAMES_ONLY - set(table._DEFAULTS)
    for backend in ("numpy", "cuda", "onnx"):
        if backend not in vars(cls) and table.lookup(cls, backend) is not table.BACKENDS[backend]:
            assert not changed, f"{cls.__name__} inherits its {backend} entry but sets {changed}"


ELEMENTWISE = [c for c in OPS if table.lookup(c, "elementwise")]


@pytest.mark.parametrize("cls", ELEMENTWISE, ids=[table.name(c) for c in ELEMENTWISE])
def test_an_elementwise_op_declares_its_arity_and_its_templates_fit_it(cls):
    n = table.lookup(cls, "arity")
    assert isinstance(n, int) and n >= 1
    t = table.lookup(cls, "numpy")
    if isinstance(t, table.Numpy) and isinstance(t.code, str):
        assert max(_fields(t.code)) < n and "{out}" in t.code
        assert set(t.calls) <= set(calls())
        ops = [f"a{i}" for i in range(n)]
        compile(t.code.format(*ops, out="o"), "<template>", "eval")   # valid Python
    c = table.lookup(cls, "cuda")
    if isinstance(c, str):
        assert max(_fields(c)) < n


@pytest.mark.parametrize("cls", ELEMENTWISE, ids=[table.name(c) for c in ELEMENTWISE])
def test_the_cuda_generator_writes_each_elementwise_op_or_names_it(cls):
    n = table.lookup(cls, "arity")
    args = tuple(Value(f"v{i}", (3,), "float32") for i in range(n))
    node = types.SimpleNamespace(fn=cls, kind=table.name(cls), args=args)
    names = {v: f"in{i}" for i, v in enumerate(args)}
    if table.lookup(cls, "cuda") is table.UNSUPPORTED:
        with pytest.raises(table.Unsupported, match=f"CUDA form for '{table.name(cls)}'"):
            expression(node, names.__getitem__, "float")
    else:
        src = expression(node, names.__getitem__, "float")
        assert "in0" in src and "{" not in src


def test_a_number_compared_in_a_cuda_kernel_keeps_the_tensors_type():
    f = jit.compile(lambda x, y: ((x > 0.5) ^ (y > 0)) & (x < 1))
    x, y = labkit.randn(4, 3), labkit.randn(4, 3)
    f(x, y)
    body = kernel_source(next(n for n in f.graph.nodes if n.kind == "fused"))[3]
    assert "bool t0 = (in0 > ((float)0.5));" in body and "(t0 ^ t1)" in body   # ^ on bools


@pytest.mark.parametrize("op", ["sinh", "cosh", "tan", "asin", "acos", "atan", "reciprocal",
                                "floor", "ceil", "erf", "exp", "sqrt", "abs", "neg", "sign"])
def test_onnx_forms_of_unary_ops_compute_what_labkit_does(op, tmp_path):
    pytest.importorskip("onnx")
    from onnx.reference import ReferenceEvaluator
    x = labkit.rand(5, 4) * 1.8 - 0.9                      # inside asin's and acos's domain
    f = getattr(labkit.Tensor, op)
    model = labkit.onnx.export(lambda x: f(x), x, tmp_path / "m.onnx")
    (got,) = ReferenceEvaluator(model).run(None, {model.graph.input[0].name: x.numpy()})
    assert np.allclose(got, f(x).numpy(), atol=1e-6, equal_nan=True)


def test_trunc_says_it_has_no_onnx_form(tmp_path):
    with pytest.raises(table.Unsupported, match="no ONNX form for the op 'trunc'"):
        labkit.onnx.export(lambda x: x.trunc(), labkit.randn(3), tmp_path / "m.onnx")


def test_only_a_function_has_entries():
    """A graph node may call a method or a Module: Tensor.numpy and Module.cuda are no entries."""
    for fn in (labkit.Tensor, labkit.nn.Linear, float, None, len):
        assert [table.lookup(fn, b) for b in table.BACKENDS] == list(table.BACKENDS.values())


@pytest.mark.parametrize("path", ["jit/emit.py", "jit/codegen.py", "jit/tiling.py",
                                  "jit/cuda_kernel.py", "jit/onnx.py", "export/onnx.py"])
def test_a_backend_names_no_op(path):
    """The code generators and exporters reach ops only through the table."""
    tree = ast.parse((pathlib.Path(labkit.__file__).parent / path).read_text())
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    used |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not used & {c.__name__ for c in OPS}
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and "engine.ops" in (n.module or ""):
            assert [a.name for a in n.names] == ["table"] or n.module.endswith("ops.table")


def test_jit_names_come_from_the_table():
    assert table.name(labkit.engine.ops.reduce.SumAll) == "sum"
    assert table.name(labkit.engine.ops.linalg.Mm) == "mm"
    assert table.name(labkit.engine.ops.arithmetic.PowTensor) == "pow"


def test_comparisons_are_classes_of_compare():
    g = jit.trace(lambda x, y: ((x > 0) & (x == y)) | ~(y < 1), (labkit.randn(3), labkit.randn(3)))
    fns = [n.fn for n in g.graph.nodes]
    assert fns == [compare.Gt, compare.Eq, compare.BitwiseAnd, compare.Lt, compare.BitwiseNot,
                   compare.BitwiseOr]      # & | ~ are bitwise (on bools: logical), as torch
    assert [n.kind for n in g.graph.nodes] == ["gt", "eq", "bitwise_and", "lt", "bitwise_not",
                                               "bitwise_or"]


def test_node_names_stay_torchs():
    x = labkit.randn(3, requires_grad=True)
    assert type((x * x).grad_fn).__name__ == "MulBackward0"
    assert type(x.sum().grad_fn).__name__ == "SumBackward0"
    assert type((2 - x).grad_fn).__name__ == "RsubBackward1"


# --- a toy op, declared only through the table ------------------------------------------
calls_seen = []


class TableFloor(Function):
    """floor(x): its table entries are all that any backend needs."""
    arity, elementwise = 1, True
    numpy, cuda, onnx = table.Numpy("floor({0}, {out})"), "floor({0})", "Floor"

    @staticmethod
    def forward(ctx, x):
        return x.device.xp.floor(x._data)

    @staticmethod
    def backward(ctx, grad):
        return grad * 0

    @staticmethod
    def jvp(args, tangents, out):
        calls_seen.append("jvp")
        return tangents[0] * 0

    @classmethod
    def vmap(cls, args, batched):
        calls_seen.append("vmap")
        return rules.elementwise(cls, args, batched)


class PlainFloor(TableFloor):
    """The same op with no table entries: a subclass that defines forward inherits none."""
    forward, backward = staticmethod(TableFloor.forward), staticmethod(TableFloor.backward)


def _f(op):
    return lambda x, y: op.apply(x * y + 0.5) * y


def test_a_toy_op_declared_in_the_table_is_fused_and_compiled():
    x, y = labkit.randn(4, 3) * 3, labkit.randn(4, 3)
    c = jit.compile(_f(TableFloor))
    c(x, y)                                                   # the first call traces
    assert labkit.allclose(c(x, y), _f(TableFloor)(x, y))     # later ones run the program
    group = next(n for n in c.graph.nodes if n.kind == "fused")
    assert [m.kind for m in group.blocks[0].nodes] == ["mul", "add", "table_floor", "mul"]
    kernel = next(iter(c.kernels.values()))
    assert "floor(" in kernel and "_call" not in kernel       # its template, not its forward
    assert "float t2 = floor(t1);" in kernel_source(group)[3]


def test_a_toy_op_without_entries_is_called_and_named():
    x, y = labkit.randn(4, 3), labkit.randn(4, 3)
    c = jit.compile(_f(PlainFloor))
    c(x, y)
    assert labkit.allclose(c(x, y), _f(PlainFloor)(x, y))
    assert "_call" in c.code + "".join(c.kernels.values())    # runs its forward
    assert "plain_floor" not in [m.kind for n in c.graph.nodes if n.kind == "fused"
                                 for m in n.blocks[0].nodes]   # not fusable: not elementwise


def test_a_toy_op_is_exported_to_onnx_through_the_table(tmp_path):
    pytest.importorskip("onnx")
    from onnx.reference import ReferenceEvaluator
    x, y = labkit.randn(4, 3) * 3, labkit.randn(4, 3)
    model = labkit.onnx.export(_f(TableFloor), (x, y), tmp_path / "m.onnx")
    assert "Floor" in [n.op_type for n in model.graph.node]
    (got,) = ReferenceEvaluator(model).run(None, {i.name: a.numpy() for i, a in
                                                  zip(model.graph.input, (x, y))})
    assert np.allclose(got, _f(TableFloor)(x, y).numpy())
    with pytest.raises(table.Unsupported, match="no ONNX form for the op 'plain_floor'"):
        labkit.onnx.export(_f(PlainFloor), (x, y), tmp_path / "p.onnx")


def test_jvp_and_vmap_use_the_toy_ops_rules_and_name_a_missing_one():
    from labkit.func import jvp, vmap
    x, t = labkit.randn(3), labkit.randn(3)
    calls_seen.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jvp(TableFloor.apply, (x,), (t,))
        vmap(TableFloor.apply)(labkit.randn(2, 3))
    assert calls_seen == ["jvp", "vmap"]
    with pytest.warns(UserWarning, match="the op PlainFloor has no tangent"):
        jvp(PlainFloor.apply, (x,), (t,))
    with pytest.warns(UserWarning, match="the op PlainFloor has no batching"):
        vmap(PlainFloor.apply)(labkit.randn(2, 3))
