"""mask &= other and the other in-place bitwise forms change the tensor itself (its views see
it), keep its dtype and refuse what torch refuses; `value in x` and reversed(x) as torch."""
import pytest

from snippets import check

pytest.importorskip("torch")

LEFT = {"bool": "L.tensor([True, False, True, False])",
        "int8": "L.tensor([3, -5, 127, 0], dtype=L.int8)",
        "int64": "L.tensor([3, 5, 6, 1 << 40])",
        "uint8": "L.tensor([3, 250, 6, 0], dtype=L.uint8)",
        "float": "L.tensor([1.0, 2.0, 3.0, 4.0])"}
RIGHT = ["L.tensor([True, True, False, False])", "L.tensor([1, 2, 3, 4])", "1", "True", "2.5",
         "L.tensor(1)", "L.tensor([[1], [0]])", "L.tensor([1, 2], dtype=L.int8)",
         "L.tensor([1.0])"]
OPS = ["&=", "|=", "^=", "<<=", ">>="]


@pytest.mark.parametrize("left", sorted(LEFT))
@pytest.mark.parametrize("right", RIGHT)
@pytest.mark.parametrize("op", OPS)
def test_inplace_operator_changes_the_tensor_and_its_views(left, right, op):
    check(f"a = {LEFT[left]}; v = a[1:3]; ident = id(a); a {op} {right}; "
          "out = (a, v, id(a) == ident)")


@pytest.mark.parametrize("method", ["bitwise_and_", "bitwise_or_", "bitwise_xor_",
                                    "bitwise_left_shift_", "bitwise_right_shift_"])
@pytest.mark.parametrize("left", ["bool", "int8", "int64"])
def test_inplace_methods_return_self(method, left):
    check(f"a = {LEFT[left]}; b = a.{method}(L.tensor([1, 0, 1, 1], dtype=a.dtype)); "
          "out = (a, b is a)")


@pytest.mark.parametrize("left", sorted(LEFT))
def test_bitwise_not_in_place(left):
    check(f"a = {LEFT[left]}; v = a[:2]; b = a.bitwise_not_(); out = (a, v, b is a)")


@pytest.mark.parametrize("code", [
    "3 in L.arange(6).reshape(2, 3)", "7 in L.arange(6).reshape(2, 3)",
    "3.0 in L.arange(6).reshape(2, 3)", "L.tensor(4) in L.arange(6).reshape(2, 3)",
    "L.tensor([0, 1, 2]) in L.arange(6).reshape(2, 3)", "L.tensor([9, 1, 9]) in L.arange(6)"
    ".reshape(2, 3)", "True in L.tensor([False])", "0 in L.zeros(0)", "2 in L.tensor(2.0)",
    "'a' in L.arange(3)", "None in L.arange(3)", "[1] in L.arange(3)",
])
def test_contains(code):
    check(f"out = {code}")


@pytest.mark.parametrize("make", ["L.arange(6).reshape(2, 3)", "L.tensor(3.0)", "L.arange(4)",
                                  "L.zeros(0, 2)"])
def test_reversed(make):
    check(f"x = {make}; r = reversed(x); out = (r, list(r) if r.dim() else None)")
