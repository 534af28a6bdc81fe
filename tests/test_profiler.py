"""labkit.profiler against torch.profiler: event names where comparable, the table's layout,
schedule, a Chrome trace that validates against the trace-event schema, zero probes when off."""
import json
import re

import pytest

import labkit
from labkit.profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule

torch = pytest.importorskip("torch")
jsonschema = pytest.importorskip("jsonschema")


def _train(m, prof_kwargs, steps=None):
    m.manual_seed(0)
    net = m.nn.Sequential(m.nn.Linear(8, 16), m.nn.ReLU(), m.nn.Linear(16, 2))
    opt = m.optim.SGD(net.parameters(), lr=0.1)
    ds = m.utils.data.TensorDataset(m.randn(32, 8), m.randn(32, 2))
    dl = m.utils.data.DataLoader(ds, batch_size=8)
    prof_mod = labkit.profiler if m is labkit else torch.profiler
    with prof_mod.profile(activities=[prof_mod.ProfilerActivity.CPU], **prof_kwargs) as prof:
        for x, y in dl:
            with prof_mod.record_function("train_step"):
                loss = m.nn.functional.mse_loss(net(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
            if steps is not None:
                prof.step()
    return prof


# names both profilers give the same program (labkit's own helpers are not compared)
COMPARABLE = {"aten::linear", "aten::relu", "aten::mse_loss", "AddmmBackward0", "ReluBackward0",
              "MseLossBackward0", "autograd::engine::evaluate_function: MseLossBackward0",
              "torch::autograd::AccumulateGrad",
              "autograd::engine::evaluate_function: AddmmBackward0",
              "autograd::engine::evaluate_function: ReluBackward0",
              "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
              "Optimizer.step#SGD.step", "Optimizer.zero_grad#SGD.zero_grad",
              "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "train_step"}


def test_event_names_as_torch():
    mine = {a.key for a in _train(labkit, {}).key_averages()}
    ref = {a.key for a in _train(torch, {}).key_averages()}
    assert COMPARABLE <= ref, COMPARABLE - ref           # the list is torch's own
    assert COMPARABLE - mine == set()
    counts = {a.key: a.count for a in _train(labkit, {}).key_averages()}
    ref_counts = {a.key: a.count for a in _train(torch, {}).key_averages()}
    for k in ("aten::linear", "AddmmBackward0", "Optimizer.step#SGD.step", "train_step",
              "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
              "torch::autograd::AccumulateGrad"):
        assert counts[k] == ref_counts[k], k


def _layout(table):
    lines = table.splitlines()
    return [len(x) for x in lines[0].split("  ")], lines[1].split(), lines[-1].split(":")[0]


def test_table_layout_as_torch():
    for kwargs in ({}, {"profile_memory": True}):
        mine = _train(labkit, kwargs).key_averages().table(sort_by="self_cpu_time_total",
                                                           row_limit=5)
        ref = _train(torch, kwargs).key_averages().table(sort_by="self_cpu_time_total",
                                                         row_limit=5)
        assert _layout(mine) == _layout(ref)
        assert len(mine.splitlines()) == len(ref.splitlines())
        body = mine.splitlines()[3:8]
        selfs = [float(re.findall(r"([\d.]+)%", row)[0]) for row in body]
        assert selfs == sorted(selfs, reverse=True)         # sorted by self CPU time


def test_times_nest_and_add_up():
    prof = _train(labkit, {"record_shapes": True, "profile_memory": True})
    events = prof.events_list()
    for e in events:
        assert e.end >= e.start and e.self_ns >= 0
        for c in e.children:
            assert e.start <= c.start and c.end <= e.end
    avg = {a.key: a for a in prof.key_averages()}
    step = avg["train_step"]
    assert step.cpu_time_total >= avg["aten::linear"].cpu_time_total
    lin = [e for e in events if e.name == "aten::linear"][0]
    assert lin.shapes == [(8, 8), (16, 8), (16,)] and lin.mem == 8 * 16 * 4
    grouped = prof.key_averages(group_by_input_shape=True)
    assert {a.input_shapes for a in grouped if a.key == "aten::linear"} == {
        "[[8, 8], [16, 8], [16]]", "[[8, 16], [2, 16], [2]]"}


def test_schedule_actions_as_torch():
    ours = schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
    ref = torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
    assert [ours(i).name for i in range(14)] == [ref(i).name for i in range(14)]


def test_schedule_keeps_active_steps_and_calls_on_trace_ready():
    saved = []
    prof = _train(labkit, {"schedule": schedule(wait=1, warmup=1, active=2),
                           "on_trace_ready": lambda p: saved.append(
                               sorted({e.name for e in p.events_list()
                                       if e.name.startswith("ProfilerStep")}))}, steps=True)
    assert saved == [["ProfilerStep#2", "ProfilerStep#3"]]
    assert {a.key: a.count for a in prof.key_averages()}["train_step"] == 2


TRACE_SCHEMA = {
    "type": "object", "required": ["traceEvents"],
    "properties": {
        "displayTimeUnit": {"enum": ["ms", "ns"]},
        "traceEvents": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["ph", "name", "pid", "tid"],
            "properties": {
                "ph": {"enum": list("XMBEiICbensftPNODR")},
                "name": {"type": "string"}, "cat": {"type": "string"},
                "ts": {"type": "number", "minimum": 0}, "dur": {"type": "number", "minimum": 0},
                "pid": {"type": ["integer", "string"]}, "tid": {"type": ["integer", "string"]},
                "args": {"type": "object"}},
            "if": {"properties": {"ph": {"const": "X"}}},
            "then": {"required": ["ts", "dur", "cat"]}}}}}


def test_chrome_trace_is_valid_and_holds_every_event(tmp_path):
    prof = _train(labkit, {"record_shapes": True, "with_stack": True})
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    jsonschema.validate(trace, TRACE_SCHEMA)
    xs = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(xs) == len(prof.events_list())
    lin = next(e for e in xs if e["name"] == "aten::linear")
    assert lin["args"]["Input Dims"] == [[8, 8], [16, 8], [16]]
    assert "test_profiler.py" in lin["args"]["Call stack"]
    ref = tmp_path / "torch.json"                 # torch's own trace passes the same schema
    _train(torch, {}).export_chrome_trace(str(ref))
    jsonschema.validate(json.loads(ref.read_text()), TRACE_SCHEMA)


def test_empty_profile_is_a_clear_error(tmp_path):
    with profile() as prof:
        pass
    with pytest.raises(RuntimeError, match="nothing was recorded"):
        prof.key_averages()
    with pytest.raises(RuntimeError, match="nothing was recorded"):
        prof.export_chrome_trace(str(tmp_path / "t.json"))
    assert not (tmp_path / "t.json").exists()
    with pytest.raises(ValueError, match="sort_by"):
        _train(labkit, {}).key_averages().table(sort_by="nonsense")


def test_no_probe_installed_when_off():
    from labkit.engine import autograd as ag
    from labkit.engine.function import Function
    from labkit.optim import SGD
    from labkit.utils.data import dataloader
    before = (Function.__subclasses__()[0].__dict__.get("forward"), list(ag.observers),
              ag.run_backward, SGD.__dict__["step"], dataloader._SingleProcessIter.__next__)
    lin_fwd = labkit.engine.ops.linear.Linear.__dict__["forward"]
    _train(labkit, {})
    after = (Function.__subclasses__()[0].__dict__.get("forward"), list(ag.observers),
             ag.run_backward, SGD.__dict__["step"], dataloader._SingleProcessIter.__next__)
    assert before == after
    assert labkit.engine.ops.linear.Linear.__dict__["forward"] is lin_fwd
    assert "forward" not in labkit.engine.ops.linalg.Mm.__dict__    # inherited, as before


def test_record_function_outside_a_profile_and_as_decorator():
    with record_function("nothing"):
        x = labkit.ones(2) * 2
    assert x.tolist() == [2.0, 2.0]

    @record_function("deco")
    def f():
        return labkit.ones(3, requires_grad=True).relu()
    with profile() as prof:
        f()
    names = [e.name for e in prof.events_list()]
    assert names[0] == "deco" and "aten::relu" in names


def test_backward_nodes_hold_the_ops_of_their_formula():
    w = labkit.randn(4, 4, requires_grad=True)
    with profile() as prof:
        (w @ w).sum().backward()
    mm = [e for e in prof.events_list() if e.name == "MmBackward0"]
    assert mm and any(c.name == "aten::matmul" or c.name == "aten::mm"
                      for c in mm[0].children)


def test_cuda_activity_without_gpu_warns():
    if labkit.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.warns(UserWarning, match="no CUDA GPU"):
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
            pass


def test_cuda_times_on_gpu(cuda_only):
    x = labkit.randn(256, 256, device="cuda")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            y = x @ x
        labkit.cuda.synchronize()
    table = prof.key_averages().table(sort_by="self_cuda_time_total")
    assert "Self CUDA" in table and "Self CUDA time total" in table
    avg = {a.key: a for a in prof.key_averages()}
    mm = avg.get("aten::mm") or avg["aten::matmul"]
    assert mm.device_time_total > 0
    assert y.shape == (256, 256)


def test_profiler_action_names():
    assert [a.name for a in ProfilerAction] == [a.name for a in torch.profiler.ProfilerAction][:4]


def test_no_grad_ops_are_seen():
    with profile() as prof:
        (labkit.ones(3).relu() + 1).sum()
    names = [e.name for e in prof.events_list()]
    assert "aten::relu" in names and "aten::add" in names
