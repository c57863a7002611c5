"""Pairwise co-location interference from Gavel's measured throughputs, and a model of it.

Gavel's ``simulation_throughputs.json`` (``throughputs/gavel/`` in the data directory, MIT) maps,
per accelerator (``k80``, ``p100``, ``v100``), each job type ``"('<model> (batch size b)', scale)"``
to its isolated throughput (key ``"null"``, steps/s) and, per co-located job type, the pair of
throughputs ``[this job, the other job]`` when the two share the accelerator.

* slowdown of job type ``a`` next to ``b``: ``iso_a / coloc_{a|b}``; the interference coefficient
  ``beta_ab = slowdown - 1`` (``docs/interference_model.md``, [recon]);
* a measured co-located throughput of ``0.0`` means the pair cannot co-locate (``forbidden``);
* a measured co-located throughput above the isolated one (a negative ``beta``) is measurement
  noise: :func:`load_gavel_interference` floors such ``beta`` at 0 and counts them in
  ``InterferenceTable.floored`` (none occur on v100 in the file of the data directory).

:class:`InterferenceModel` [ours] is a scikit-learn regression (gradient-boosted trees) that
predicts ``log(slowdown)`` of an unmeasured pair from the two job types' features (model family,
log batch size, log isolated throughput); :func:`held_out_error` measures it on pairs it never
saw (group-aware split: ``(a, b)`` and ``(b, a)`` fall in the same fold).

>>> table = InterferenceTable(names=("A (batch size 8)", "B (batch size 8)"),
...                           iso=(10.0, 5.0), beta=((0.0, 0.25), (1.0, 0.5)),
...                           forbidden=((False, False), (False, True)))
>>> table.slowdown(0, 1), table.index("B (batch size 8)")
(1.25, 1)
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from optsched.core import portable
from optsched.core.errors import InvalidInstanceError
from optsched.core.instance import MAX_MAGNITUDE
from optsched.core.jsonfile import unique_keys

__all__ = ["InterferenceTable", "load_gavel_interference", "job_features", "InterferenceModel",
           "held_out_error", "GAVEL_THROUGHPUTS"]

#: the file inside the data directory
GAVEL_THROUGHPUTS = "throughputs/gavel/simulation_throughputs.json"

_NAME = re.compile(r"^(?P<model>.+?)(?: \(batch size (?P<batch>\d+)\))?$")


@dataclass(frozen=True)
class InterferenceTable:
    """Job types (scale 1), their isolated throughputs (steps/s) and the measured pair table.

    ``beta[a][b]`` is the slowdown of ``a`` next to ``b`` minus one; ``forbidden[a][b]`` marks
    pairs that cannot co-locate (``beta`` is then 0 and meaningless). ``multi_gpu_iso`` maps
    ``(name, scale)`` to the isolated throughput of the multi-GPU variants.
    """

    names: tuple[str, ...]
    iso: tuple[float, ...]
    beta: tuple[tuple[float, ...], ...]
    forbidden: tuple[tuple[bool, ...], ...]
    multi_gpu_iso: tuple[tuple[str, int, float], ...] = ()
    accelerator: str = "v100"
    floored: int = 0

    def index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise InvalidInstanceError("interference", "job_type", "not in the throughput table", name) from None

    def slowdown(self, a: int, b: int) -> float:
        return 1.0 + self.beta[a][b]

    def throughput(self, name: str, scale: int = 1) -> float:
        """Isolated steps/s of ``name`` on ``scale`` GPUs (measured; scale 1 if no multi-GPU row)."""
        for n, s, t in self.multi_gpu_iso:
            if n == name and s == scale:
                return t
        return self.iso[self.index(name)]

    def pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Measured, allowed ordered pairs ``(a, b, beta_ab)`` (self-pairs included)."""
        a, b, y = [], [], []
        for i in range(len(self.names)):
            for k in range(len(self.names)):
                if not self.forbidden[i][k] and not math.isnan(self.beta[i][k]):
                    a.append(i), b.append(k), y.append(self.beta[i][k])
        return np.array(a, int), np.array(b, int), np.array(y, float)


def _parse_key(key: str, source: str) -> tuple[str, int]:
    try:
        name, scale = ast.literal_eval(key)
    except (ValueError, SyntaxError, TypeError):
        raise InvalidInstanceError("interference", f"{source} key {key!r}", "must be \"('<job type>', scale)\"") from None
    if not isinstance(name, str) or not isinstance(scale, int) or scale < 1:
        raise InvalidInstanceError("interference", f"{source} key {key!r}", "must be (str, int >= 1)")
    return name, scale


def _not_json(name: str):
    raise ValueError(f"{name} is not a JSON number (a throughput is finite)")


def _throughput(value) -> bool:
    """Whether ``value`` is a measured throughput: a number (not true/false) in [0, MAX_MAGNITUDE]."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= MAX_MAGNITUDE


def load_gavel_interference(path: str | Path, accelerator: str = "v100") -> InterferenceTable:
    """Read Gavel's throughput file: the scale-1 job types of ``accelerator`` and their pairs.

    A pair that is not measured gets ``beta = nan`` (to be predicted); ``0.0`` co-located
    throughput makes the pair ``forbidden``; a malformed entry raises
    :class:`InvalidInstanceError` naming the key.
    """
    source = Path(path).name
    try:
        data = json.loads(Path(path).read_text(), object_pairs_hook=unique_keys, parse_constant=_not_json)
    except OSError as exc:
        raise InvalidInstanceError("interference", "(file)", f"cannot read {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise InvalidInstanceError("interference", "(file)", f"{path} is not valid JSON: {exc.msg}") from None
    except ValueError as exc:   # a key given twice, NaN or Infinity
        raise InvalidInstanceError("interference", "(file)", f"{path}: {exc}") from None
    if not isinstance(data, dict) or accelerator not in data or not isinstance(data[accelerator], dict):
        raise InvalidInstanceError("interference", accelerator, f"{source} has no accelerator table {accelerator!r}")
    table = data[accelerator]
    singles, multi = {}, []
    for key, entry in table.items():
        name, scale = _parse_key(key, source)
        if not isinstance(entry, dict) or not _throughput(entry.get("null")) or not entry["null"] > 0:
            raise InvalidInstanceError("interference", f"{source} {accelerator} {key} null",
                                       f"isolated throughput must be a number > 0 and at most {MAX_MAGNITUDE:g}",
                                       entry.get("null") if isinstance(entry, dict) else entry)
        if scale == 1:
            singles[name] = entry
        else:
            multi.append((name, scale, float(entry["null"])))
    names = tuple(sorted(singles))
    if not names:
        raise InvalidInstanceError("interference", accelerator, "holds no scale-1 job type")
    n = len(names)
    iso = tuple(float(singles[x]["null"]) for x in names)
    beta = [[math.nan] * n for _ in range(n)]
    forbidden = [[False] * n for _ in range(n)]
    floored = 0
    for i, x in enumerate(names):
        for other, pair in singles[x].items():
            if other == "null":
                continue
            oname, oscale = _parse_key(other, source)
            if oscale != 1 or oname not in singles:
                continue
            if not (isinstance(pair, list) and len(pair) == 2 and all(map(_throughput, pair))):
                raise InvalidInstanceError("interference", f"{source} {accelerator} {x} / {other}",
                                           f"must be a pair of throughputs (numbers >= 0, at most {MAX_MAGNITUDE:g})",
                                           pair)
            k = names.index(oname)
            if pair[0] <= 0.0:
                forbidden[i][k], beta[i][k] = True, 0.0
                continue
            b = iso[i] / float(pair[0]) - 1.0
            if b < 0:
                floored += 1
                b = 0.0
            beta[i][k] = b
    return InterferenceTable(names, iso, tuple(map(tuple, beta)), tuple(map(tuple, forbidden)),
                             tuple(sorted(multi)), accelerator, floored)


def job_features(table: InterferenceTable) -> np.ndarray:
    """Per job type: one-hot model family, log2 batch size, log isolated throughput [ours]."""
    models, batches = [], []
    for name in table.names:
        m = _NAME.match(name)
        models.append(m.group("model"))
        batches.append(float(m.group("batch") or 1))
    families = sorted(set(models))
    onehot = np.array([[float(m == f) for f in families] for m in models])
    # portable logarithms: the same features, so the same fitted model, on every machine
    return np.column_stack([onehot, portable.log(np.asarray(batches)) / portable.log(2.0),
                            portable.log(np.asarray(table.iso, float))])


def _pair_x(feat: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.column_stack([feat[a], feat[b]])


class InterferenceModel:
    """Predicts ``beta_ab`` for job-type pairs from job features [ours].

    Gradient-boosted regression trees (scikit-learn) on ``[features(a), features(b)]``, target
    ``log(1 + beta)`` (slowdowns are multiplicative, the log keeps the large ones from dominating).
    """

    def __init__(self, seed: int = 0, n_estimators: int = 200, max_depth: int = 3):
        self.seed, self.n_estimators, self.max_depth = seed, n_estimators, max_depth
        self._model = None

    def fit(self, table: InterferenceTable, a=None, b=None, y=None) -> "InterferenceModel":
        from sklearn.ensemble import GradientBoostingRegressor

        self.features = job_features(table)
        if a is None:
            a, b, y = table.pairs()
        self._model = GradientBoostingRegressor(n_estimators=self.n_estimators, max_depth=self.max_depth,
                                                learning_rate=0.05, subsample=0.8, random_state=self.seed)
        self._model.fit(_pair_x(self.features, a, b), portable.log(1.0 + np.asarray(y, float)))
        return self

    def predict(self, a, b) -> np.ndarray:
        """Predicted ``beta`` (>= 0) for the pairs ``(a[i], b[i])``."""
        a, b = np.atleast_1d(a), np.atleast_1d(b)
        return np.maximum(portable.exp(self._model.predict(_pair_x(self.features, a, b))) - 1.0, 0.0)

    def complete(self, table: InterferenceTable) -> np.ndarray:
        """The full ``beta`` matrix: measured where measured, predicted where ``nan``."""
        beta = np.array(table.beta, float)
        miss = np.argwhere(np.isnan(beta))
        if miss.size:
            beta[miss[:, 0], miss[:, 1]] = self.predict(miss[:, 0], miss[:, 1])
        return beta


def held_out_error(table: InterferenceTable, folds: int = 5, seed: int = 0) -> dict:
    """Cross-validated error of :class:`InterferenceModel` on unseen pairs.

    Group-aware: the unordered pair ``{a, b}`` is the group, so neither ``(a, b)`` nor ``(b, a)``
    is in the training folds when the pair is tested. Reports the mean absolute error of the
    predicted slowdown ``1 + beta`` against the measured one, beside the error of predicting the
    training mean (the trivial baseline), and the same with whole model families held out.
    """
    from sklearn.model_selection import GroupKFold

    a, b, y = table.pairs()
    groups = np.array([min(i, k) * len(table.names) + max(i, k) for i, k in zip(a, b)])
    families = np.array([_NAME.match(table.names[i]).group("model") for i in range(len(table.names))])

    def run(splits):
        pred = np.zeros_like(y)
        base = np.zeros_like(y)
        for train, test in splits:
            model = InterferenceModel(seed=seed).fit(table, a[train], b[train], y[train])
            pred[test] = model.predict(a[test], b[test])
            base[test] = y[train].mean()
        return {"mae_slowdown": float(np.mean(np.abs(pred - y))),
                "mae_baseline_mean": float(np.mean(np.abs(base - y))),
                "median_abs_error": float(np.median(np.abs(pred - y))),
                "spearman": float(_spearman(pred, y))}

    pair_split = list(GroupKFold(n_splits=folds).split(a, y, groups))
    fam_of_pair = np.array([f"{min(families[i], families[k])}|{max(families[i], families[k])}"
                            for i, k in zip(a, b)])
    fam_ids = np.unique(families)
    # family hold-out: every pair touching the held-out family is tested, none is trained on
    fam_split = []
    for f in fam_ids:
        test = np.array([f in p.split("|") for p in fam_of_pair])
        fam_split.append((np.flatnonzero(~test), np.flatnonzero(test)))
    return {"pairs": int(len(y)), "folds": folds, "unseen_pairs": run(pair_split),
            "unseen_model_family": run(fam_split), "accelerator": table.accelerator}


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    from scipy.stats import spearmanr

    return spearmanr(x, y).statistic
