"""How long `import labkit` takes in a fresh interpreter (target < 0.3 s), next to numpy alone
(labkit's only import-time dependency), median of interleaved runs."""
import statistics
import subprocess
import sys

CODE = "import time; t = time.perf_counter(); import {m}; print(time.perf_counter() - t)"


def once(module):
    out = subprocess.run([sys.executable, "-c", CODE.format(m=module)], capture_output=True,
                         text=True, check=True)
    return float(out.stdout)


def main(rounds=11):
    times = {"numpy": [], "labkit": []}
    for _ in range(rounds):
        for m in times:
            times[m].append(once(m))
    for m, t in times.items():
        print(f"import {m:<7s} {statistics.median(t) * 1e3:7.1f} ms (median of {rounds})")
    labkit_ms = statistics.median(times["labkit"]) * 1e3
    print(f"import labkit = {labkit_ms:.0f} ms (target < 300 ms)")


if __name__ == "__main__":
    main()
