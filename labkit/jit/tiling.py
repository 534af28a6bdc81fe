"""Running a large fused group block by block: each block of TILE elements goes through all
the group's ops while it is still in the CPU's cache, instead of streaming every whole array
through memory once per op."""
import numpy as np

from .ops import inplace_ok

TILE = 262144        # elements per block of a tiled fused group (1 MiB of float32)
TILE_MIN = 2 * TILE  # groups at least this large run block by block


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class Tiling:
    """Tiled fused groups for codegen's generator (a mixin)."""

    def _tileable(self, group, members):
        """Large groups whose inputs are whole arrays of the group's shape (or numbers)."""
        shape = members[0].outputs[0].shape
        size = 1
        for d in shape:
            size *= d
        return (size >= TILE_MIN and self.xp is np and not self.pinned
                and all(inplace_ok(m.fn) and m.outputs[0].shape == shape for m in members)
                and all(v.shape == shape for v in group.args))

    def _tiled_kernel(self, kname, group, members):
        """The group run over blocks of TILE elements: every op of a block works on data
        still in the CPU's cache, instead of streaming whole arrays through memory once per
        op. The results go straight into the group's output arrays."""
        inside = {v for m in members for v in m.outputs}
        last = {}
        for i, m in enumerate(members):
            for v in m.inputs:
                last[v] = i
        n = _numel(members[0].outputs[0].shape)
        head = [f"for s in range(0, {n}, {TILE}):", f"    e = min(s + {TILE}, {n})"]
        pre = []
        saved = dict(self.dst), dict(self.name.of)
        for v in group.args:
            flat = f"{self.name(v)}_flat"
            pre.append(f"{flat} = {self.name(v)}.reshape(-1)")
            self.name.of[v] = f"{flat}[s:e]"
        outs = []
        for v in group.outputs:
            full = f"{self.name(v)}_full"
            pre.append(f"{full} = {self.out(v)}")
            outs.append(full)
            self.dst[v] = f"{full}.reshape(-1)[s:e]"
        scratch, free = 0, []
        body = []
        for i, m in enumerate(members):
            v = m.outputs[0]
            if v not in group.outputs:
                reuse = next((self.dst[u] for u in m.inputs if u in inside and last.get(u) == i
                              and u not in group.outputs and self.dst.get(u) in free), None)
                if reuse is None:
                    name = f"_t{scratch}"
                    scratch += 1
                    self.ns[name] = self.xp.empty(TILE, v.dtype)
                    reuse = f"{name}[:e - s]"
                    free.append(reuse)
                self.dst[v] = reuse
            body += ["    " + line for line in self.emit(m)]
        self.dst, self.name.of = saved
        ins = [self.name(v) for v in group.args]
        lines = pre + head + body + ["return (" + "".join(o + ", " for o in outs) + ")"]
        defaults = self._defaults(lines, skip=ins)
        return "\n".join([f"def {kname}({', '.join(ins + defaults)}):"] +
                         ["    " + line for line in lines])
