"""The experiments, one module each in modelbench.experiments.base's shape; ALL in report order."""

from modelbench.experiments import (calibration, e1a, e1b, e2, e3, e4, e5, e6, e7, e8, e9, e10,
                                    e11, node4)

ALL = [e1a, e1b, node4, e2, e3, e4, calibration, e5, e6, e7, e8, e9, e10, e11]


def run_order(chosen):
    """The chosen experiments in the order they run: ALL's, but E1b first, whose first blocks give
    the calibrated models their cost, which E1a's calibrated loops need."""
    return sorted(chosen, key=lambda experiment: (experiment is not e1b, ALL.index(experiment)))


def get(key):
    """The experiment of that key, in any case (e1b, E1B); KeyError when there is none."""
    for experiment in ALL:
        if experiment.KEY.lower() == key.lower():
            return experiment
    raise KeyError(key)


def keys():
    return [experiment.KEY for experiment in ALL]
