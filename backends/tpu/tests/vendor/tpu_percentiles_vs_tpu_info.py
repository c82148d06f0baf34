"""xpuperf's TPU percentiles against tpu-info's own percentile code, on generated histograms.

Usage: tpu_percentiles_vs_tpu_info.py PERCENTILES_TOOL

tpu-info (Google's client, pinned in requirements/vendors.txt) computes P50/P90/P95/P999 of the
runtime's exponential histograms in tpu_info.metrics._get_percentile. This calls that function
and xpuperf's reading of the same histogram (the TPU backend's ToDistribution and Percentile,
through PERCENTILES_TOOL) on 3000 generated cases: random scales and growth factors, bucket
counts from 1 to 60, sparse and empty top buckets, trailing buckets left out as the runtime does,
counts where q * count is whole and where it is not, one sample, everything in the overflow
bucket, and observed extremes inside the buckets (which tpu-info does not clamp to). The values
must agree to 1e-9 relative. A percentile in the underflow bucket is the one case compared
differently: tpu-info returns its fallback 1 whatever the data; xpuperf's must lie in the bucket.
"""

import json
import random
import subprocess
import sys

from tpu_info import metrics as tpu_info_metrics

QUANTILES = {"p50": 0.5, "p90": 0.9, "p95": 0.95, "p999": 0.999}


def generated_cases(rng):
  cases = []
  for n in range(3000):
    finite = rng.randint(0, 40)
    buckets = finite + 2
    scale = rng.choice([1.0, 0.5, 10.0, 1e-3, rng.uniform(0.01, 100)])
    growth = rng.choice([2.0, 1.5, 10.0, rng.uniform(1.05, 4)])
    counts = [0] * buckets
    shape = n % 6
    if shape == 0:  # one sample
      counts[rng.randrange(1, buckets)] = 1
    elif shape == 1:  # everything in the overflow bucket
      counts[-1] = rng.randint(1, 5000)
    elif shape == 2:  # sparse top: a bulk, then one or two samples far above
      bulk = rng.randrange(1, buckets - 1) if buckets > 2 else 0
      counts[bulk] = rng.randint(100, 100000)
      counts[rng.randrange(bulk + 1, buckets)] += rng.randint(1, 2)
    elif shape == 3:  # counts that make q * count whole (multiples of 1000)
      for i in rng.sample(range(1, buckets), rng.randint(1, buckets - 1)):
        counts[i] = 1000 * rng.randint(1, 20)
    else:  # random layouts, some in the underflow bucket
      for i in range(buckets):
        if rng.random() < 0.4:
          counts[i] = rng.randint(0, 300)
      if sum(counts) == 0:
        counts[rng.randrange(buckets)] = 1
    last = max(i for i, c in enumerate(counts) if c > 0)
    wire = counts[: last + 1] if rng.random() < 0.5 else counts  # trailing empties left out
    lower = lambda i: scale / growth if i == 0 else scale * growth ** (i - 1)
    first = min(i for i, c in enumerate(counts) if c > 0)
    low, high = lower(first), lower(last) * growth
    observed_min = low + (high - low) * rng.random() * 0.1
    observed_max = high - (high - low) * rng.random() * 0.1
    cases.append({"scale": scale, "growth": growth, "finite": finite, "counts": wire,
                  "min": min(observed_min, observed_max), "max": max(observed_min, observed_max),
                  "mean": (observed_min + observed_max) / 2})
  return cases


def main():
  if len(sys.argv) != 2:
    sys.exit(__doc__)
  cases = generated_cases(random.Random(20261206))
  run = subprocess.run([sys.argv[1]], input="\n".join(json.dumps(c) for c in cases) + "\n",
                       capture_output=True, text=True, check=True)
  answers = [json.loads(line) for line in run.stdout.splitlines()]
  assert len(answers) == len(cases), (len(answers), len(cases))
  compared = underflow = 0
  for case, ours in zip(cases, answers):
    assert "error" not in ours, (case, ours)
    counts, count = case["counts"], sum(case["counts"])
    for name, q in QUANTILES.items():
      rank = int(count * q)
      theirs = tpu_info_metrics._get_percentile(rank, count, list(counts), case["scale"],
                                                case["growth"])
      if counts[0] > rank:  # in the underflow bucket: tpu-info's fallback
        assert theirs == 1, (case, name, theirs)
        assert case["scale"] / case["growth"] <= ours[name] <= case["scale"], (case, name, ours)
        underflow += 1
        continue
      assert abs(ours[name] - theirs) <= 1e-9 * max(abs(theirs), 1e-300), (
          f"{name}: xpuperf {ours[name]!r}, tpu-info {theirs!r} for {case}")
      compared += 1
  print(f"ok: {compared} percentiles identical to tpu-info's (1e-9 relative) over {len(cases)} "
        f"histograms; {underflow} in the underflow bucket, where tpu-info prints its fallback 1")
  return 0


if __name__ == "__main__":
  sys.exit(main())
