"""The federated platform: clusters of nodes with relative power, one inter-cluster link per cluster.

slowdown-guided-ga-federation, Sect. 3 and method-notes topic 6 ("Specification — execution-slowdown
model"): cluster k has N_k nodes, node n has relative power Gamma_n; cluster k reaches the other
clusters through one link of capacity MBW_k (a star through a central switch); the intra-cluster
network is never the bottleneck.

A platform file is TOML or JSON (by extension; ``.json`` is JSON, anything else TOML)::

    name = "four-clusters"
    normalize_power = true          # optional, default true: fastest node gets Gamma = 1

    [[clusters]]
    name = "c1"
    nodes = 64
    power = 1.0                     # or: powers = [1.0, 1.0, 0.9, ...] (one per node)

    [[links]]
    cluster = "c1"
    bandwidth = 100.0               # MBW_k, same unit as the jobs' per-task demand PTBW_j

Every cluster needs exactly one link. Errors name the file, the entry (and its line when it can
be found) and the problem, as one line (:class:`PlatformError`).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import SchedlabError

__all__ = ["Platform", "PlatformError", "default_platform", "load_platform", "NORMALIZE_POWER_READING"]

#: method-notes topic 6: "[DEF] normalize so the fastest node has Γ = 1"
NORMALIZE_POWER_READING = "method-notes topic 6: \"node n has relative power Γ_n (reference node Γ = 1; [DEF] normalize so the fastest node has Γ = 1)\""


class PlatformError(SchedlabError, ValueError):
    """A platform description that cannot be used (one line: file, entry, problem)."""


@dataclass(frozen=True, eq=False)
class Platform:
    """Clusters of nodes with relative power and one inter-cluster link each.

    ``node_cluster[n]`` is the cluster of node n, ``node_power[n]`` its relative power Gamma_n
    (> 0), ``bandwidth[k]`` the capacity MBW_k of cluster k's link. Nodes are numbered cluster by
    cluster. ``normalize_power``: divide every power by the largest (:data:`NORMALIZE_POWER_READING`).
    """

    cluster_names: tuple[str, ...]
    node_cluster: np.ndarray
    node_power: np.ndarray
    bandwidth: np.ndarray
    name: str = "platform"
    normalize_power: bool = True
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        nc = np.ascontiguousarray(self.node_cluster, dtype=np.int64)
        pw = np.ascontiguousarray(self.node_power, dtype=np.float64)
        bw = np.ascontiguousarray(self.bandwidth, dtype=np.float64)
        K = len(self.cluster_names)
        if K == 0:
            raise PlatformError(f"{self.where}: a platform needs at least one cluster")
        if nc.ndim != 1 or nc.shape != pw.shape or nc.size == 0:
            raise PlatformError(f"{self.where}: node arrays must be 1-d, non-empty and of equal length")
        if bw.shape != (K,):
            raise PlatformError(f"{self.where}: one link bandwidth per cluster is needed ({K}), got {bw.size}")
        if nc.min() < 0 or nc.max() >= K or np.any(np.diff(nc) < 0):
            raise PlatformError(f"{self.where}: nodes must be numbered cluster by cluster")
        if not np.all(np.isfinite(pw)) or np.any(pw <= 0):
            raise PlatformError(f"{self.where}: every node power must be a positive number")
        if not np.all(np.isfinite(bw)) or np.any(bw <= 0):
            raise PlatformError(f"{self.where}: every link bandwidth must be a positive number")
        if self.normalize_power:
            pw = pw / pw.max()
        for name, arr in (("node_cluster", nc), ("node_power", pw), ("bandwidth", bw)):
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @property
    def where(self) -> str:
        return self.source or self.name

    @property
    def n_nodes(self) -> int:
        return int(self.node_cluster.size)

    @property
    def n_clusters(self) -> int:
        return len(self.cluster_names)

    def cluster_sizes(self) -> np.ndarray:
        return np.bincount(self.node_cluster, minlength=self.n_clusters)

    def describe(self) -> list[dict[str, Any]]:
        """One row per cluster: name, nodes, min/max power, link bandwidth (for `platform show`)."""
        rows = []
        for k, name in enumerate(self.cluster_names):
            p = self.node_power[self.node_cluster == k]
            rows.append({"cluster": name, "nodes": int(p.size), "power_min": float(p.min()),
                         "power_max": float(p.max()), "bandwidth": float(self.bandwidth[k])})
        return rows

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able description (recorded in run configs; :func:`platform_from_dict` reads it back)."""
        clusters = []
        for k, name in enumerate(self.cluster_names):
            p = self.node_power[self.node_cluster == k]
            entry: dict[str, Any] = {"name": name, "nodes": int(p.size)}
            if np.all(p == p[0]):
                entry["power"] = float(p[0])
            else:
                entry["powers"] = [float(v) for v in p]
            clusters.append(entry)
        return {
            "name": self.name,
            "normalize_power": False,  # powers below are already normalized when the option was on
            "clusters": clusters,
            "links": [{"cluster": n, "bandwidth": float(b)} for n, b in zip(self.cluster_names, self.bandwidth)],
        }


def default_platform(
    nodes_per_cluster: int = 64,
    powers: tuple[float, ...] = (1.0, 0.8, 0.6, 0.4),
    bandwidth: float = 100.0,
) -> Platform:
    """The documented default federation: 4 clusters x 64 nodes, Gamma = 1.0/0.8/0.6/0.4, MBW_k = 100.

    method-notes topic 6 (Unknowns): "choose a platform whose total nodes ≥ largest job, e.g. 4
    clusters × 32 nodes with Γ = 1.0/0.8/0.6/0.4 and state it"; "MBW_k default 100". Reading:
    the HPC2N traces of the paper's experiments come from a 240-processor machine (largest job
    200), which 4 x 32 = 128 nodes cannot hold, so the default takes 64 nodes per cluster
    (256 >= 240) and keeps the powers and bandwidth of the notes.
    """
    K = len(powers)
    return Platform(
        cluster_names=tuple(f"c{k + 1}" for k in range(K)),
        node_cluster=np.repeat(np.arange(K), nodes_per_cluster),
        node_power=np.repeat(np.asarray(powers, dtype=np.float64), nodes_per_cluster),
        bandwidth=np.full(K, float(bandwidth)),
        name=f"default ({K} x {nodes_per_cluster} nodes)",
    )


# ---------------------------------------------------------------------------------- files


def _entry_line(text: str, section: str, index: int, is_json: bool) -> str:
    """' (line N)' of the index-th ``[[section]]`` header of a TOML text ('' when not found / JSON)."""
    if is_json:
        return ""
    hits = [i for i, line in enumerate(text.splitlines(), 1) if re.match(rf"\s*\[\[\s*{section}\s*\]\]", line)]
    return f" (line {hits[index]})" if index < len(hits) else ""


def _number(value: Any, what: str, *, integer: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} must be a number, got {value!r}")
    if integer and int(value) != value:
        raise ValueError(f"{what} must be a whole number, got {value!r}")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{what} must be > 0, got {value!r}")
    return float(value)


def platform_from_dict(data: Any, source: str = "platform", text: str = "", is_json: bool = True) -> Platform:
    """Build and validate a Platform from the parsed file contents (see the module docstring)."""
    if not isinstance(data, dict):
        raise PlatformError(f"{source}: a platform file holds a table with 'clusters' and 'links'")
    unknown = sorted(set(data) - {"name", "normalize_power", "clusters", "links"})
    if unknown:
        raise PlatformError(f"{source}: unknown key {unknown[0]!r} (allowed: name, normalize_power, clusters, links)")
    clusters, links = data.get("clusters"), data.get("links")
    if not isinstance(clusters, list) or not clusters:
        raise PlatformError(f"{source}: no clusters (give one [[clusters]] entry per cluster)")
    if not isinstance(links, list):
        raise PlatformError(f"{source}: no links (give one [[links]] entry per cluster)")
    names: list[str] = []
    node_cluster: list[np.ndarray] = []
    node_power: list[np.ndarray] = []
    for i, c in enumerate(clusters):
        at = f"{source}: clusters[{i + 1}]{_entry_line(text, 'clusters', i, is_json)}"
        try:
            if not isinstance(c, dict):
                raise ValueError("must be a table")
            bad = sorted(set(c) - {"name", "nodes", "power", "powers"})
            if bad:
                raise ValueError(f"unknown key {bad[0]!r} (allowed: name, nodes, power, powers)")
            name = c.get("name")
            if not isinstance(name, str) or not name:
                raise ValueError("needs a name")
            if name in names:
                raise ValueError(f"cluster name {name!r} is used twice")
            if "powers" in c:
                if "power" in c:
                    raise ValueError("give either power or powers, not both")
                if not isinstance(c["powers"], list) or not c["powers"]:
                    raise ValueError("powers must be a non-empty list")
                p = np.array([_number(v, f"power of node {j + 1}") for j, v in enumerate(c["powers"])])
                if "nodes" in c and _number(c["nodes"], "nodes", integer=True) != p.size:
                    raise ValueError(f"nodes = {c['nodes']} but {p.size} powers given")
            else:
                if "nodes" not in c:
                    raise ValueError("needs nodes (a positive whole number)")
                n = int(_number(c["nodes"], "nodes", integer=True))
                p = np.full(n, _number(c.get("power", 1.0), "power"))
        except ValueError as exc:
            raise PlatformError(f"{at}: {exc}") from None
        names.append(name)
        node_cluster.append(np.full(p.size, i, dtype=np.int64))
        node_power.append(p)
    bandwidth = np.full(len(names), np.nan)
    for i, lk in enumerate(links):
        at = f"{source}: links[{i + 1}]{_entry_line(text, 'links', i, is_json)}"
        try:
            if not isinstance(lk, dict):
                raise ValueError("must be a table")
            bad = sorted(set(lk) - {"cluster", "bandwidth"})
            if bad:
                raise ValueError(f"unknown key {bad[0]!r} (allowed: cluster, bandwidth)")
            cname = lk.get("cluster")
            if cname not in names:
                raise ValueError(f"unknown cluster {cname!r} (clusters: {', '.join(names)})")
            k = names.index(cname)
            if not np.isnan(bandwidth[k]):
                raise ValueError(f"cluster {cname!r} has a second link (one link per cluster)")
            bandwidth[k] = _number(lk.get("bandwidth"), "bandwidth")
        except ValueError as exc:
            raise PlatformError(f"{at}: {exc}") from None
    missing = [n for n, b in zip(names, bandwidth) if np.isnan(b)]
    if missing:
        raise PlatformError(f"{source}: cluster {missing[0]!r} has no link (give a [[links]] entry with its bandwidth)")
    normalize = data.get("normalize_power", True)
    if not isinstance(normalize, bool):
        raise PlatformError(f"{source}: normalize_power must be true or false, got {normalize!r}")
    name = data.get("name", Path(source).stem if source else "platform")
    return Platform(
        cluster_names=tuple(names),
        node_cluster=np.concatenate(node_cluster),
        node_power=np.concatenate(node_power),
        bandwidth=bandwidth,
        name=str(name),
        normalize_power=normalize,
        source=source,
    )


def load_platform(path: str | os.PathLike) -> Platform:
    """Read and validate a platform file (TOML, or JSON for ``.json``); bad input -> PlatformError."""
    import tomllib

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PlatformError(f"{path}: cannot read the platform file ({getattr(exc, 'strerror', None) or exc})") from None
    is_json = path.suffix.lower() == ".json"
    try:
        data = json.loads(text) if is_json else tomllib.loads(text)
    except json.JSONDecodeError as exc:
        raise PlatformError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    except tomllib.TOMLDecodeError as exc:
        raise PlatformError(f"{path}: not valid TOML ({exc})") from None
    return platform_from_dict(data, str(path), text, is_json)
