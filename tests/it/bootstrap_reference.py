"""Independent re-implementation of skillgate's cluster bootstrap, used once to produce the
expected intervals pasted into tests/it/stats.rs. Run: python3 tests/it/bootstrap_reference.py

Algorithm (docs/statistics.md): SplitMix64 stream seeded with mix(seed ^ mix((stream+1)*GAMMA)),
index = (next * n) >> 64, each resample is the mean of n drawn per-task differences, bounds are
numpy-style (type 7) quantiles of the sorted resample means.
"""
import numpy as np

M = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def interval(values, resamples, confidence, seed, stream):
    state = mix(seed ^ mix(((stream + 1) * GAMMA) & M))
    n = len(values)
    means = []
    for _ in range(resamples):
        total = 0.0
        for _ in range(n):
            state = (state + GAMMA) & M
            total += values[(mix(state) * n) >> 64]
        means.append(total / n)
    tail = (1 - confidence) / 2
    lo, hi = np.quantile(np.array(means), [tail, 1 - tail], method="linear")
    return repr(float(lo)), repr(float(hi))


SEED = 0x5C116A7E
# The four-task journal of tests/it/stats.rs: per-task C1 - C0 pass-share differences.
print("small delta", interval([2 / 3, 0.0, 0.0, -1 / 3], 10_000, 0.95, SEED, 1))
# The twelve-task journal: C1 passes k of 3 seeds, C0 passes j of 3 (see `synthetic::twelve_tasks`).
c1 = [3, 3, 2, 3, 1, 2, 3, 3, 0, 2, 3, 1]
c0 = [1, 2, 2, 0, 1, 0, 3, 1, 1, 2, 1, 0]
diffs = [(a - b) / 3 for a, b in zip(c1, c0)]
print("twelve delta", interval(diffs, 10_000, 0.95, SEED, 1))
print("twelve delta 99%", interval(diffs, 2_000, 0.99, 7, 1))
c2 = [1, 2, 1, 1, 1, 1, 2, 1, 0, 1, 1, 1]
print("twelve length", interval([(a - b) / 3 for a, b in zip(c2, c0)], 10_000, 0.95, SEED, 2))
print("twelve content", interval([(a - b) / 3 for a, b in zip(c1, c2)], 10_000, 0.95, SEED, 3))
