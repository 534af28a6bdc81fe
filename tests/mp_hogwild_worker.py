"""Run by tests/test_multiprocessing.py as `python mp_hogwild_worker.py LIB` (LIB: torch or
labkit): Hogwild-style shared weights updated by processes started with spawn (mp.Process and
mp.spawn), a child's exception re-raised by spawn, tensors through a Queue by value and by
shared memory. Prints one JSON line of what it saw, to compare the two libraries."""
import json
import sys


def train(rank, model, q):
    import importlib
    torch = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "labkit")
    with torch.no_grad():
        for p in model.parameters():
            p.add_(rank + 1.0)
    q.put(bool(model.weight.is_shared()))


def fails(i):
    if i == 1:
        raise ValueError("boom in 1")


def main(lib):
    import importlib
    torch = importlib.import_module(lib)
    mp = importlib.import_module(lib + ".multiprocessing")
    mp.set_start_method("spawn", force=True)
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    before = [p.detach().clone() for p in model.parameters()]
    model.share_memory()
    q = mp.Queue()
    procs = [mp.Process(target=train, args=(r, model, q)) for r in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    shared = sorted([q.get(), q.get()])
    after_process = [(p - b).tolist() for p, b in zip(model.parameters(), before)]
    mp.spawn(train, args=(model, q), nprocs=2)
    shared += sorted([q.get(), q.get()])
    after_spawn = [(p - b).tolist() for p, b in zip(model.parameters(), before)]
    try:
        mp.spawn(fails, nprocs=2)
        raised = None
    except mp.ProcessRaisedException as e:
        raised = ("boom in 1" in str(e), e.error_index)
    x = torch.arange(4.0)
    q.put(x)
    y = q.get()
    y[0] = 7.0                   # x moved into shared memory when sent: x sees it too
    s = torch.zeros(3).share_memory_()
    q.put(s)
    t = q.get()
    t[1] = 5.0                   # the same memory: s sees it
    g = torch.ones(2, requires_grad=True) * 2
    try:
        q.put(g)
        q.get(timeout=3)
        refused = False
    except Exception as e:       # noqa: BLE001 -- raised in the queue's feeder thread or here
        refused = type(e).__name__
    print(json.dumps({"refused": refused, "shared": shared, "after_process": after_process,
                      "after_spawn": after_spawn, "raised": raised,
                      "by_value": [x.tolist(), y.tolist(), bool(y.is_shared())],
                      "by_memory": [s.tolist(), bool(t.is_shared())],
                      "strategy": mp.get_sharing_strategy() in mp.get_all_sharing_strategies()}))


if __name__ == "__main__":
    main(sys.argv[1])
