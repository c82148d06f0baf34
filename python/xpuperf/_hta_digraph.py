"""The part of networkx's DiGraph that HTA's critical path uses, in networkx's order: nodes in
the order of their first edge, successors and predecessors in the order their edges were added,
topological_sort by generations, and dag_longest_path (the first best predecessor wins a tie),
so that the longest path is the one networkx finds, without networkx.
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Tuple


class EdgeView:
    """G.edges of networkx: iterates (u, v) in insertion order; [u, v] is the attribute dict."""

    def __init__(self, succ: Dict[int, Dict[int, Dict[str, Any]]]):
        self._succ = succ

    def __iter__(self) -> Iterator[Tuple[int, int]]:
        for u, targets in self._succ.items():
            for v in targets:
                yield u, v

    def __len__(self) -> int:
        return sum(len(targets) for targets in self._succ.values())

    def __getitem__(self, uv: Tuple[int, int]) -> Dict[str, Any]:
        u, v = uv
        return self._succ[u][v]

    def __contains__(self, uv) -> bool:
        u, v = uv
        return u in self._succ and v in self._succ[u]


class DiGraph:
    """A directed graph of int nodes; each edge's attributes are a dict (weight, object)."""

    def __init__(self):
        self._node: Dict[int, None] = {}  # the nodes, in networkx's order
        self._succ: Dict[int, Dict[int, Dict[str, Any]]] = {}
        self._pred: Dict[int, Dict[int, Dict[str, Any]]] = {}

    @property
    def edges(self) -> EdgeView:
        return EdgeView(self._succ)

    @property
    def nodes(self) -> List[int]:
        return list(self._node)

    def number_of_nodes(self) -> int:
        return len(self._node)

    def number_of_edges(self) -> int:
        return len(self.edges)

    def neighbors(self, n: int) -> Iterator[int]:
        return iter(self._succ[n])

    successors = neighbors

    def predecessors(self, n: int) -> Iterator[int]:
        return iter(self._pred[n])

    def __len__(self) -> int:
        return len(self._node)

    def __contains__(self, n) -> bool:
        return n in self._node

    def __iter__(self) -> Iterator[int]:
        return iter(self._node)

    def to_networkx(self):
        """A networkx.DiGraph with this graph's nodes and edges (attributes weight, object)."""
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_nodes_from(self._node)
        for u, v in self.edges:
            graph.add_edge(u, v, **self._succ[u][v])
        return graph

    def add_edge(self, u: int, v: int, weight, obj) -> None:
        """networkx's add_edge: new nodes in order (u first); an edge added again keeps its place
        and takes the new weight and object."""
        succ = self._succ
        if u not in succ:
            succ[u], self._pred[u], self._node[u] = {}, {}, None
        if v not in succ:
            succ[v], self._pred[v], self._node[v] = {}, {}, None
        data = succ[u].get(v)
        if data is None:
            data = {"weight": weight, "object": obj}
            succ[u][v] = data
            self._pred[v][u] = data
        else:
            data["weight"] = weight
            data["object"] = obj

    def topological_order(self) -> List[int]:
        """networkx's topological_sort: generation by generation from the nodes without
        predecessors, in node and edge insertion order; raises ValueError on a cycle."""
        indegree = {v: len(self._pred[v]) for v in self._node if self._pred[v]}
        generation = [v for v in self._node if not self._pred[v]]
        order: List[int] = []
        while generation:
            following = []
            for node in generation:
                for child in self._succ[node]:
                    indegree[child] -= 1
                    if indegree[child] == 0:
                        following.append(child)
                        del indegree[child]
            order.extend(generation)
            generation = following
        if indegree:
            raise ValueError("Graph contains a cycle or graph changed during iteration")
        return order

    def longest_path(self, order: List[int]) -> List[int]:
        """networkx's dag_longest_path(weight="weight") over `order`."""
        if not self._node:
            return []
        dist: Dict[int, Tuple[Any, int]] = {}
        for v in order:
            best = None
            for u, data in self._pred[v].items():
                length = dist[u][0] + data.get("weight", 1)
                if best is None or length > best[0]:
                    best = (length, u)
            if best is None:
                best = (0, v)
            dist[v] = best if best[0] >= 0 else (0, v)
        v = max(dist, key=lambda x: dist[x][0])
        path: List[int] = []
        u = None
        while u != v:
            path.append(v)
            u = v
            v = dist[v][1]
        path.reverse()
        return path
