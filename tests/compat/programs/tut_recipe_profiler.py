"""PyTorch recipe "PyTorch Profiler" (recipes_source/recipes/profiler_recipe.py), on a small CNN
instead of torchvision's resnet18: profile(activities=[ProfilerActivity.CPU], record_shapes=True)
around record_function("model_inference"), prof.key_averages().table(sort_by="cpu_time_total",
row_limit=10), group_by_input_shape=True, profile_memory=True sorted by "self_cpu_memory_usage",
export_chrome_trace, and a schedule(wait, warmup, active, repeat) with on_trace_ready and
prof.step()."""
import json
import os
import tempfile

import torch
import torch.nn as nn
from torch.profiler import profile, record_function, ProfilerActivity

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(16, 10))
inputs = torch.randn(5, 3, 32, 32)

# 3. execution time
with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    with record_function("model_inference"):
        model(inputs)

table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)
print(table)
assert "model_inference" in table
names = [evt.key for evt in prof.key_averages()]
assert "model_inference" in names
inference = [evt for evt in prof.key_averages() if evt.key == "model_inference"][0]
assert inference.count == 1
assert inference.cpu_time_total >= 0
print(prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total", row_limit=10))

# 4. memory
with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True) as prof:
    model(inputs)
print(prof.key_averages().table(sort_by="self_cpu_memory_usage", row_limit=10))
print(prof.key_averages().table(sort_by="cpu_memory_usage", row_limit=10))

# 5. tracing
trace_path = os.path.join(tempfile.mkdtemp(), "trace.json")
with profile(activities=[ProfilerActivity.CPU]) as prof:
    model(inputs)
prof.export_chrome_trace(trace_path)
with open(trace_path) as f:
    trace = json.load(f)
events = trace["traceEvents"] if isinstance(trace, dict) else trace
assert len(events) > 0

# 7. long-running jobs: a schedule and an on_trace_ready handler
traces = []


def trace_handler(p):
    output = p.key_averages().table(sort_by="cpu_time_total", row_limit=10)
    traces.append(output)


with profile(
    activities=[ProfilerActivity.CPU],
    schedule=torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=1),
    on_trace_ready=trace_handler,
) as p:
    for idx in range(8):
        model(inputs)
        p.step()
assert len(traces) == 1, len(traces)
