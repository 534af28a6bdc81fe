"""The Python callables a scripted graph holds for a method call or an attribute read, and
the tuple a call returns: shared by script (which builds graphs) and serialize (which loads
them), so neither imports the other's module.
"""


class Tuple(list):
    """A tuple result held whole by one graph value. (The interpreter spreads a tuple over a
    node's outputs; a call in script has one output, which `a, b = ...` then indexes.)"""


def keep_tuple(result):
    """A (possibly nested) tuple result as Tuples, so no level is spread out and cut."""
    return Tuple(keep_tuple(r) for r in result) if isinstance(result, tuple) else result


def untuple(x):
    return tuple(untuple(r) for r in x) if isinstance(x, Tuple) else x


def call_method(name):
    """x.name(*args) as a function of x (a tensor method call in the graph)."""
    def call(obj, *args, **kwargs):
        return keep_tuple(getattr(obj, name)(*args, **kwargs))
    call.__name__ = call.__qualname__ = name
    call.method = name
    return call


def get_attr(name):
    """x.name (x.shape, x.T ...) as a function of x."""
    def get(obj):
        return getattr(obj, name)
    get.__name__ = get.__qualname__ = name
    get.attr = name
    return get
