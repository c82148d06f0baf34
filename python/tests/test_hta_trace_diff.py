"""HTA 0.5.0's TraceDiff and xpuperf.hta's on the same pairs of shared traces: equal
compare_traces frames (columns, dtypes, index, values) for every device type, with and without
short names, explicit iterations and labels, the same ops_diff lists, the same errors."""

import logging
import os
import warnings

import pandas as pd
import pytest

import xpuperf.hta as ours

hta_trace_diff = pytest.importorskip("hta.trace_diff", reason="skipped: HTA not installed")
warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

PAIRS = [("trace_compare__base__base.json.gz", "trace_compare__test__test.json.gz"),
         ("trace_filter__sampled_rank-0.json.gz", "trace_filter__sampled_rank-1.json.gz")]


def _single(tmp_path, trace_dir, name):
    directory = tmp_path / name
    directory.mkdir()
    os.symlink(os.path.join(trace_dir, name), directory / name)
    return str(directory)


def _both(call):
    results = []
    for module in (hta_trace_diff, ours):
        try:
            results.append(call(module))
        except Exception as error:  # noqa: BLE001 - compared below
            results.append(error)
    return results


def _assert_same(theirs, mine):
    if isinstance(theirs, Exception):
        assert type(mine) is type(theirs) and str(mine) == str(theirs), (theirs, mine)
    elif isinstance(theirs, pd.DataFrame):
        assert not isinstance(mine, Exception), mine
        pd.testing.assert_frame_equal(mine, theirs, check_exact=True)
    else:
        assert mine == theirs


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p[0][:20])
def test_compare_traces(trace_dir, tmp_path, pair):
    control, test = (_single(tmp_path, trace_dir, name) for name in pair)
    for device in ("ALL", "CPU", "GPU"):
        for short in (False, True):
            _assert_same(*_both(lambda m: m.TraceDiff.compare_traces(
                control, test, device_type=m.DeviceType[device], use_short_name=short)))
    _assert_same(*_both(lambda m: m.TraceDiff.ops_diff(control, test)))
    _assert_same(*_both(lambda m: m.TraceDiff.ops_diff(
        control, test, device_type=m.DeviceType.GPU)))


def test_iterations_labels_and_errors(trace_dir, tmp_path):
    control, test = (_single(tmp_path, trace_dir, name) for name in PAIRS[1])
    theirs_control = hta_trace_diff.LabeledTrace(label="base", trace_dir=control)
    steps = theirs_control.iterations()
    assert steps == ours.LabeledTrace(label="base", trace_dir=control).iterations()
    _assert_same(*_both(lambda m: m.TraceDiff.compare_traces(
        m.LabeledTrace(label="base", trace_dir=control),
        m.LabeledTrace(label="new", trace_dir=test),
        control_iteration=steps[-1], test_iteration=steps[:2])))
    _assert_same(*_both(lambda m: m.TraceDiff.compare_traces(
        m.LabeledTrace(label="same", trace_dir=control),
        m.LabeledTrace(label="same", trace_dir=test))))
    _assert_same(*_both(lambda m: m.TraceDiff.compare_traces(control, test,
                                                             control_iteration=10**6)))
    _assert_same(*_both(lambda m: m.TraceDiff.compare_traces(control, test, control_rank=7)))
    no_steps = _single(tmp_path, trace_dir,
                       "critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz")
    _assert_same(*_both(lambda m: m.TraceDiff.compare_traces(no_steps, test)))


@pytest.mark.parametrize("seeds", [(1, 2), (3, 4), (5, 6), (7, 8)], ids=str)
def test_generated(hta_referee, tmp_path, seeds):
    directories = []
    for seed in seeds:
        directory = tmp_path / f"seed{seed}"
        directory.mkdir()
        hta_referee.generate(str(directory / f"generated_{seed}.json"), seed)
        directories.append(str(directory))
    control, test = directories
    for device in ("ALL", "CPU", "GPU"):
        _assert_same(*_both(lambda m: m.TraceDiff.compare_traces(
            control, test, device_type=m.DeviceType[device], use_short_name=device == "GPU")))
    _assert_same(*_both(lambda m: m.TraceDiff.ops_diff(control, test)))
