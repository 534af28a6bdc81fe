"""labkit.jit.script: compile a function's source (its AST) into a Graph, without running it.

Where trace sees one run, script reads the code, so control flow survives: an `if` becomes an
If node holding both branches, `for i in range(n)` a Loop node holding the body, and which
branch runs (or how often the loop turns) is decided at run time by the values. The subset:
assignments (also `a, b = ...` and `x += y`), arithmetic and comparisons, tensor methods,
labkit functions (labkit.relu, F.linear ...), calls of submodules (self.fc1(x)), `if`/`else`
and `a if c else b`, `for ... in range(...)`, `return` (a tuple is fine; also inside an if),
and arguments annotated float/int/bool. Anything else stops with an error naming the line and
what to write instead.
"""
import ast
import builtins
import inspect
import operator
import textwrap

from ..engine import hooks
from ..engine.tensor import Tensor
from . import interpreter
from .calls import call_method, get_attr, keep_tuple, untuple
from .ir import Graph, Value, python_code
from .module_view import ModuleView
from .serialize import save

_BINOPS = {ast.Add: ("add", operator.add), ast.Sub: ("sub", operator.sub),
           ast.Mult: ("mul", operator.mul), ast.Div: ("div", operator.truediv),
           ast.Pow: ("pow", operator.pow), ast.MatMult: ("matmul", operator.matmul),
           ast.FloorDiv: ("floordiv", operator.floordiv), ast.Mod: ("mod", operator.mod)}
_CMPOPS = {ast.Gt: ("gt", operator.gt), ast.GtE: ("ge", operator.ge),
           ast.Lt: ("lt", operator.lt), ast.LtE: ("le", operator.le),
           ast.Eq: ("eq", operator.eq), ast.NotEq: ("ne", operator.ne)}
_UNARY = {ast.USub: ("neg", operator.neg), ast.Not: ("not", operator.not_),
          ast.UAdd: ("pos", operator.pos)}
_SCALARS = {"float": float, "int": int, "bool": bool}
_ADVICE = {
    ast.While: "a while loop: use `for i in range(n)` with a fixed n",
    ast.Try: "try/except: handle errors outside the scripted function",
    ast.With: "a with-block: put it around the call, outside the scripted function",
    ast.Lambda: "a lambda: write the expression inline",
    ast.ListComp: "a list comprehension: write a for loop over range(n)",
    ast.FunctionDef: "a nested def: define it at module level and script it separately",
    ast.Break: "break: loop over range(n) with a fixed n, and use if inside the body",
    ast.Continue: "continue: put the rest of the body under an if",
}


class ScriptError(SyntaxError):
    """Code labkit.jit.script cannot compile; the message names the line and a fix."""


class _Compiler:
    def __init__(self, fn, owner=None):
        self.fn = fn
        self.owner = owner
        self.source_lines, self.first = inspect.getsourcelines(fn)
        src = textwrap.dedent("".join(self.source_lines))
        self.tree = ast.parse(src).body[0]
        self.globals = dict(getattr(fn, "__globals__", {}))
        code = fn.__code__
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            try:
                self.globals[name] = cell.cell_contents
            except ValueError:
                pass
        self.graph = Graph(fn.__name__)
        self.params = {}

    def sub(self, name):
        """A block: a small Graph whose values are numbered with the function's."""
        b = Graph(name)
        b._ids = self.graph._ids
        return b

    # --- errors -----------------------------------------------------------------------------------
    def error(self, node, what, fix):
        line = getattr(node, "lineno", 1)
        text = self.source_lines[line - 1].rstrip() if line <= len(self.source_lines) else ""
        return ScriptError(f"{self.fn.__qualname__}, line {self.first + line - 1}: {what} is "
                           f"not supported by labkit.jit.script. Instead: {fix}.\n"
                           f"    {text.strip()}")

    def unsupported(self, node):
        advice = _ADVICE.get(type(node))
        if advice:
            what, fix = advice.split(": ", 1)
        else:
            what, fix = (f"`{type(node).__name__}` syntax",
                         "use assignments, arithmetic, tensor methods, labkit functions, "
                         "if/else, for over range(...), and one return at the end, or use "
                         "labkit.jit.trace")
        return self.error(node, what, fix)

    # --- the function ----------------------------------------------------------------------------
    def compile(self):
        f = self.tree
        if not isinstance(f, ast.FunctionDef):
            raise self.error(f, "this kind of definition", "script a def function")
        env = {}
        args = f.args
        if args.vararg or args.kwarg or args.kwonlyargs:
            raise self.error(f, "*args, **kwargs and keyword-only arguments",
                             "list each argument by name")
        names = [a for a in args.args]
        if self.owner is not None:
            names = names[1:]
            env[args.args[0].arg] = ("self", self.owner)
        for a in names:
            kind = "Tensor"
            if a.annotation is not None:
                ann = a.annotation.id if isinstance(a.annotation, ast.Name) else None
                if isinstance(a.annotation, ast.Attribute) and a.annotation.attr == "Tensor":
                    ann = "Tensor"                      # torch.Tensor, as TorchScript reads it
                if ann not in _SCALARS and ann != "Tensor":
                    raise self.error(a, f"the annotation of {a.arg!r}",
                                     "annotate numbers as float, int or bool (tensors need none)")
                kind = ann if ann in _SCALARS else "Tensor"
            env[a.arg] = self.graph.add_input(a.arg, kind=kind)
        body = [s for s in f.body if not _is_docstring(s)]
        out = self.returning(body, env, self.graph, f)
        self.graph.outputs = list(out) if isinstance(out, tuple) else [out]
        self.tuple_out = isinstance(out, tuple)
        return self.graph

    def returning(self, stmts, env, g, where):
        """Compile statements that end in a return (possibly inside if/else): the value.
        `if c: return a` followed by more code becomes an If whose else-block is that code."""
        for i, s in enumerate(stmts):
            if isinstance(s, ast.Return):
                if i != len(stmts) - 1:
                    raise self.error(stmts[i + 1], "code after a return", "remove it")
                if s.value is None:
                    raise self.error(s, "a return without a value", "return a tensor")
                return self.expr(s.value, env, g)
            if isinstance(s, ast.If) and (_returns(s.body) or _returns(s.orelse)):
                rest = stmts[i + 1:]
                cond = self.expr(s.test, env, g)
                blocks, results = [], []
                for name, body in (("then", s.body), ("else", s.orelse)):
                    b = self.sub(name)
                    r = self.returning(body if _returns(body) else body + rest, dict(env), b, s)
                    b.outputs = list(r) if isinstance(r, tuple) else [r]
                    blocks.append(b)
                    results.append(r)
                if len(blocks[0].outputs) != len(blocks[1].outputs):
                    raise self.error(s, "branches that return different numbers of values",
                                     "return the same number of values in every branch")
                outs = [g.new_value(kind=_kind(o)) for o in blocks[0].outputs]
                g.add_node("If", None, (cond,), outs, blocks=blocks)
                return tuple(outs) if isinstance(results[0], tuple) else outs[0]
            self.stmt(s, env, g)
        raise self.error(stmts[-1] if stmts else where, "a function (or branch) without a return",
                         "end every path through the function with `return ...`")

    def block(self, stmts, env, g):
        for s in stmts:
            self.stmt(s, env, g)

    def stmt(self, s, env, g):
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                raise self.error(s, "chained assignment (a = b = ...)", "assign one at a time")
            self.assign(s.targets[0], self.expr(s.value, env, g), env, g)
        elif isinstance(s, ast.AnnAssign) and s.value is not None:
            self.assign(s.target, self.expr(s.value, env, g), env, g)
        elif isinstance(s, ast.AugAssign):
            if not isinstance(s.target, ast.Name):
                raise self.error(s, "augmented assignment to an attribute or item",
                                 "assign to a plain variable")
            name, op = _BINOPS.get(type(s.op), (None, None))
            if name is None:
                raise self.unsupported(s)
            target = self.load(s.target, env, g)
            inplace = getattr(operator, "i" + op.__name__.strip("_"), op)
            env[s.target.id] = self.node(g, "i" + name, inplace, (target,
                                         self.expr(s.value, env, g)))
        elif isinstance(s, ast.If):
            self.if_stmt(s, env, g)
        elif isinstance(s, ast.For):
            self.for_stmt(s, env, g)
        elif isinstance(s, ast.Return):
            raise self.error(s, "a return inside a loop",
                             "assign the result to a variable and return it after the loop")
        elif isinstance(s, ast.Pass) or _is_docstring(s):
            pass
        elif isinstance(s, ast.Expr):
            raise self.error(s, "an expression whose value is thrown away (a call for its "
                                "side effect, such as print)",
                             "keep side effects outside the scripted function, or assign the "
                             "result")
        else:
            raise self.unsupported(s)

    def assign(self, target, value, env, g):
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, ast.Tuple) and all(isinstance(e, (ast.Name, ast.Tuple))
                                                   for e in target.elts):
            for i, e in enumerate(target.elts):      # (nested: out, (h, c) = self.lstm(x))
                self.assign(e, value[i] if isinstance(value, tuple) else
                            self.node(g, "getitem", operator.getitem, (value, i)), env, g)
        else:
            raise self.error(target, "assigning to an attribute or an item",
                             "assign to a plain variable name (or a tuple of names)")

    # --- control flow --------------------------------------------------------------------------
    def if_stmt(self, s, env, g):
        cond = self.expr(s.test, env, g)
        branches = []
        for name, body in (("then", s.body), ("else", s.orelse)):
            b = self.sub(name)
            benv = dict(env)
            self.block(body, benv, b)
            branches.append((b, benv))
        changed = [k for k in dict.fromkeys(list(branches[0][1]) + list(branches[1][1]))
                   if any(benv.get(k) is not env.get(k) for _, benv in branches)]
        for k in changed:
            if any(k not in benv for _, benv in branches):
                raise self.error(s, f"a variable ({k!r}) set in only one branch of an if",
                                 f"give {k!r} a value before the if, or in both branches")
        for b, benv in branches:
            b.outputs = [benv[k] for k in changed]
        outs = [g.new_value(kind=_kind(branches[0][1][k])) for k in changed]
        g.add_node("If", None, (cond,), outs, blocks=[b for b, _ in branches])
        env.update(zip(changed, outs))

    def if_expr(self, e, env, g):
        cond = self.expr(e.test, env, g)
        blocks = []
        for name, part in (("then", e.body), ("else", e.orelse)):
            b = self.sub(name)
            b.outputs = [self.expr(part, dict(env), b)]
            blocks.append(b)
        out = g.new_value()
        g.add_node("If", None, (cond,), [out], blocks=blocks)
        return out

    def for_stmt(self, s, env, g):
        it = s.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and it.func.id == "range" and 1 <= len(it.args) <= 3 and not it.keywords):
            raise self.error(s, "a for loop over something other than range(...)",
                             "loop over range(n) (TorchScript unrolls loops over modules; "
                             "write the calls out, or use labkit.jit.trace)")
        if not isinstance(s.target, ast.Name) or s.orelse:
            raise self.error(s, "this form of for loop", "write `for i in range(...):`")
        bounds = [self.expr(a, env, g) for a in it.args]
        if len(bounds) == 1:
            bounds = [0] + bounds
        bounds += [1] * (3 - len(bounds))
        body = self.sub("body")
        benv = dict(env)
        n = next(self.graph._ids)
        index = body.new_value(name=f"{s.target.id}.{n}", kind="int")
        benv[s.target.id] = index
        probe = dict(benv)
        self.block(s.body, probe, Graph("probe"))    # which variables the body changes
        carried = [k for k in probe if k in env and probe[k] is not env[k]]
        for k in carried:
            benv[k] = body.new_value(name=f"{k}.{n}", kind=_kind(env[k]))
        body.inputs = [index] + [benv[k] for k in carried]
        self.block(s.body, benv, body)
        body.outputs = [benv[k] for k in carried]
        outs = [g.new_value(kind=_kind(env[k])) for k in carried]
        g.add_node("Loop", None, tuple(bounds) + tuple(env[k] for k in carried), outs,
                   blocks=[body])
        env.update(zip(carried, outs))

    # --- expressions --------------------------------------------------------------------------
    def node(self, g, kind, fn, args, kw=None):
        out = g.new_value(kind="Tensor")
        g.add_node(kind, fn, tuple(args), [out], meta={"kw": kw} if kw else None)
        return out

    def expr(self, e, env, g):
        if isinstance(e, ast.Constant) and isinstance(e.value, (int, float, bool, str,
                                                                  type(None))):
            return e.value
        if isinstance(e, ast.Name):
            return self.load(e, env, g)
        if isinstance(e, ast.Tuple):
            return tuple(self.expr(x, env, g) for x in e.elts)
        if isinstance(e, ast.BinOp) and type(e.op) in _BINOPS:
            name, fn = _BINOPS[type(e.op)]
            return self.node(g, name, fn, (self.expr(e.left, env, g),
                                           self.expr(e.right, env, g)))
        if isinstance(e, ast.UnaryOp) and type(e.op) in _UNARY:
            name, fn = _UNARY[type(e.op)]
            return self.node(g, name, fn, (self.expr(e.operand, env, g),))
        if isinstance(e, ast.Compare) and len(e.ops) == 1 and type(e.ops[0]) in _CMPOPS:
            name, fn = _CMPOPS[type(e.ops[0])]
            return self.node(g, name, fn, (self.expr(e.left, env, g),
                                           self.expr(e.comparators[0], env, g)))
        if isinstance(e, ast.BoolOp):
            raise self.error(e, "`and`/`or`", "combine conditions with & and | on tensors, "
                                              "or nest the ifs")
        if isinstance(e, ast.IfExp):
            return self.if_expr(e, env, g)
        if isinstance(e, ast.Call):
            return self.call(e, env, g)
        if isinstance(e, ast.Attribute):
            base = self.expr(e.value, env, g) if not _is_self(e.value, env) else None
            if base is None:
                return self.self_attr(e, env, g)
            if isinstance(base, Value):
                return self.node(g, e.attr, get_attr(e.attr), (base,))
            return getattr(base, e.attr)
        if isinstance(e, ast.Subscript):
            index = self.expr(e.slice, env, g) if not isinstance(e.slice, ast.Slice) else \
                slice(*(self.expr(p, env, g) if p is not None else None
                        for p in (e.slice.lower, e.slice.upper, e.slice.step)))
            return self.node(g, "getitem", operator.getitem, (self.expr(e.value, env, g), index))
        raise self.unsupported(e)

    def load(self, e, env, g):
        name = e.id
        if name in env:
            v = env[name]
            if isinstance(v, tuple) and len(v) == 2 and v[0] == "self":
                raise self.error(e, "using `self` as a value", "use its attributes: self.fc1(x)")
            return v
        if name in self.globals:
            return self.constant(self.globals[name], name, e)
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise self.error(e, f"the name {name!r}, which is not defined here",
                         "define it before use (both branches of an if must define it)")

    def constant(self, obj, name, e):
        if isinstance(obj, Tensor):
            v = self.params.get(id(obj))
            if v is None:
                v = self.params[id(obj)] = self.graph.add_input(name, obj._data.shape,
                                                                obj._data.dtype, role="param",
                                                                ref=obj)
            return v
        return obj

    def self_attr(self, e, env, g):
        obj = getattr(self.owner, e.attr, None)
        if obj is None and not hasattr(self.owner, e.attr):
            raise self.error(e, f"self.{e.attr}, which this module does not have",
                             "check the attribute's name")
        if isinstance(obj, Tensor):
            return self.constant(obj, e.attr, e)
        return obj

    def call(self, e, env, g):
        args = [self.expr(a, env, g) for a in e.args]
        kw = {k.arg: self.expr(k.value, env, g) for k in e.keywords}
        if any(k.arg is None for k in e.keywords) or any(isinstance(a, ast.Starred)
                                                         for a in e.args):
            raise self.error(e, "*args or **kwargs in a call", "pass each argument by name")
        f = e.func
        path = None
        if isinstance(f, ast.Attribute) and not _is_self(f.value, env):
            target = self.expr(f.value, env, g)
            if isinstance(target, Value):                     # a tensor method
                return self.node(g, f.attr, call_method(f.attr), [target] + args, kw)
            fn = getattr(target, f.attr, None)
            if inspect.ismodule(target):
                path = f"{target.__name__}.{f.attr}"
        elif isinstance(f, ast.Attribute):                    # self.something(...)
            fn = self.self_attr(f, env, g)
            if hasattr(fn, "parameters"):
                return self.node(g, f.attr, _submodule_call(fn), args, kw)
        elif isinstance(f, ast.Name):
            fn = self.load(f, env, g)
            if fn in _SCALARS.values():
                return self.node(g, fn.__name__, fn, args, kw)
            path = _global_path(self.globals, f.id, fn)
        else:
            raise self.unsupported(e)
        module = getattr(fn, "__module__", "") or ""
        if not callable(fn) or not module.startswith("labkit"):
            raise self.error(e, f"calling {ast.unparse(f)} (not a labkit function)",
                             "call labkit functions (labkit.relu, F.linear ...), tensor "
                             "methods or submodules; do other work outside")
        out = self.node(g, getattr(fn, "__name__", "call"), _returning_tuples(fn), args, kw)
        out.node.meta["path"] = path          # how to find fn again (jit.load)
        return out


def _submodule_call(module):
    """self.sub(...) in the graph: the module's result, a tuple kept whole."""
    def call(*args, **kwargs):
        return keep_tuple(module(*args, **kwargs))
    call.__name__ = call.__qualname__ = type(module).__name__
    call.module = module
    return call


def _returning_tuples(fn):
    def call(*args, **kwargs):
        return keep_tuple(fn(*args, **kwargs))
    call.__name__ = call.__qualname__ = getattr(fn, "__name__", "call")
    call.__wrapped__ = fn
    return call


def _global_path(namespace, name, fn):
    """'labkit.nn.functional.relu' for a function imported by name, if it can be found so."""
    module = getattr(fn, "__module__", None)
    if module and getattr(__import__(module, fromlist=["_"]), name, None) is fn:
        return f"{module}.{name}"
    return None


def _returns(stmts):
    """Whether a block always ends by returning."""
    if not stmts:
        return False
    last = stmts[-1]
    return isinstance(last, ast.Return) or (isinstance(last, ast.If) and _returns(last.body)
                                            and _returns(last.orelse))


def _is_docstring(s):
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and \
        isinstance(s.value.value, str)


def _is_self(e, env):
    return isinstance(e, ast.Name) and isinstance(env.get(e.id), tuple) and \
        env[e.id][:1] == ("self",)


def _kind(v):
    if isinstance(v, Value):
        return v.kind
    return type(v).__name__ if isinstance(v, (int, float, bool)) else "Tensor"


class ScriptFunction(ModuleView):
    """The result of jit.script: .graph (with If/Loop nodes), .code, call it; a scripted
    module also shows the module's parts (scripted.fc1, scripted.parameters()). Called while
    a trace runs, it is recorded as one node, so its control flow survives in the trace."""

    def __init__(self, graph, tuple_out, name, module=None):
        self.graph, self._tuple, self.__name__, self.module = graph, tuple_out, name, module
        self.op_name = name

    @property
    def code(self):
        return python_code(self.graph)

    def __call__(self, *args):
        tracer = hooks.current_tracer()
        if tracer is None:
            return self.apply(*args)
        with hooks.tracing(None):     # run untraced, then record the whole call as one node
            out = self.apply(*args)
            # fresh tensor objects: a branch may return an input as it is, and the tracer
            # would take that for the value it already knows
            out = tuple(_fresh(o) for o in out) if isinstance(out, tuple) else _fresh(out)
        tracer.record(self, args, out)
        return out

    def apply(self, *args):
        out = tuple(untuple(o) for o in interpreter.run(self.graph, args))
        return out if self._tuple else out[0]

    def save(self, path):
        save(self, path)

    def __repr__(self):
        return f"<scripted {self.__name__}>\n{self.graph}"


def _fresh(x):
    return x.view(x.shape) if isinstance(x, Tensor) else x


def script(fn_or_module):
    """Compile a function (or a module's forward) from its source; usable as a decorator."""
    from .trace import TracedFunction
    if isinstance(fn_or_module, (ScriptFunction, TracedFunction)):
        return fn_or_module                  # already a graph (as torch.jit.script does)
    if hasattr(fn_or_module, "forward") and hasattr(fn_or_module, "parameters"):
        comp = _Compiler(type(fn_or_module).forward, owner=fn_or_module)
        name = type(fn_or_module).__name__
    elif callable(fn_or_module) and hasattr(fn_or_module, "__code__"):
        comp = _Compiler(fn_or_module)
        name = fn_or_module.__name__
    else:
        raise TypeError(f"labkit.jit.script: expected a function or a module, got "
                        f"{type(fn_or_module).__name__}.")
    graph = comp.compile()
    return ScriptFunction(graph, comp.tuple_out, name,
                          module=fn_or_module if comp.owner is not None else None)
