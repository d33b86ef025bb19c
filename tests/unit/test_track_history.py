"""track --history: a change in time between two commits one track run timed in the same rounds stands only where
that run's paired step there was called."""

import math

from rooflab.commands.track_history import _changes, _paired
from rooflab.model.changepoints import PENALTY


def _series(times):
    return [{"commit": f"c{i}", "short": f"c{i}", "subject": f"revision {i}", "time_s": t} for i, t in enumerate(times)]


def test_a_shift_of_the_medians_that_the_paired_step_did_not_see_is_not_a_change_point():
    # a host switching between two speed states: revisions 3-5 caught more slow rounds than 0-2, 30% apart
    times = [1.0, 1.01, 0.99, 1.3, 1.31, 1.29]
    series = _series(times)
    logs, sigmas = [math.log(t) for t in times], [0.01] * 6

    def by_commit(verdict_at_3):
        return {f"c{i}": [{"step": (f"c{i - 1}", verdict_at_3 if i == 3 else "no difference") if i else None}]
                for i in range(6)}

    found, dropped = _changes(series, logs, sigmas, "time", PENALTY, _paired(by_commit("no difference")))
    assert found == [] and [d["short"] for d in dropped] == ["c3"]
    assert dropped[0]["paired_verdicts"] == ["no difference"]
    assert all(p["time_segment"] == 0 for p in series)
    # the paired step called it: the change stands, at that commit
    found, dropped = _changes(series, logs, sigmas, "time", PENALTY, _paired(by_commit("slower")))
    assert [c["short"] for c in found] == ["c3"] and dropped == [] and found[0]["ratio"] > 1.25
    # points from runs at different moments, no paired evidence between them: the weighted search decides
    found, dropped = _changes(series, logs, sigmas, "time", PENALTY, _paired({f"c{i}": [{"step": None}]
                                                                            for i in range(6)}))
    assert [c["short"] for c in found] == ["c3"] and dropped == []
