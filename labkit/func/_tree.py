"""Pytrees: tensors inside nested tuples, lists and dicts (what torch.func accepts as inputs)."""


def flatten(tree):
    """(leaves, rebuild): rebuild(new_leaves) puts new leaves back in the same structure."""
    if isinstance(tree, (tuple, list)):
        parts = [flatten(t) for t in tree]
        leaves = [leaf for p in parts for leaf in p[0]]

        def rebuild(new, parts=parts, kind=type(tree)):
            out, i = [], 0
            for p in parts:
                n = len(p[0])
                out.append(p[1](new[i:i + n]))
                i += n
            return kind(out)
        return leaves, rebuild
    if isinstance(tree, dict):
        keys = list(tree)
        leaves, rebuild = flatten([tree[k] for k in keys])
        return leaves, lambda new: dict(zip(keys, rebuild(new)))
    return [tree], lambda new: new[0]


def tree_map(fn, tree):
    leaves, rebuild = flatten(tree)
    return rebuild([fn(leaf) for leaf in leaves])
