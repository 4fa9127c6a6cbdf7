"""The campaign's seed plan: which seeded games to play per title and configuration.

Pure (no I/O) so the unit tests can check it without Ruby. A spec names one game completely — title,
configuration (its optional rules), player count and seed — so a result can be matched to its spec when a
run is resumed. Seeds are derived from the spec's position in the plan, never random, so the same plan is
the same games on every machine; they lie in 1,000,000..9,999,999, a range no public conformance game uses
(those are six-digit or nine-digit seeds), and alternate odd/even because the oracle bot sets and clears
standing orders only in games with odd seeds.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

#: title folder -> the title as a record names it (what the oracle bot needs).
RECORD_TITLE = {"1825": "1825", "1828": "1828.Games", "1840": "1840"}


@dataclass(frozen=True)
class Config:
    """One configuration of a title: a name, its optional rules and the player counts it is played with."""

    name: str
    options: tuple[str, ...]
    players: tuple[int, ...]
    #: relative cost of one game (1 = a small 1825 game); the bank plays few games of costly configurations.
    weight: int = 1


@dataclass(frozen=True, order=True)
class Spec:
    """One seeded game of the plan."""

    title: str
    config: str
    players: int
    seed: int
    options: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """File stem of the game's record, unique within the plan."""
        return f"camp{self.title}_{self.config}_{self.players}p_{self.seed}"

    @property
    def key(self) -> str:
        """What a results line is matched on when a run resumes."""
        return f"{self.title}/{self.config}/{self.players}p/{self.seed}"

    @property
    def opts(self) -> str:
        """The options as the oracle bot takes them (comma-separated)."""
        return ",".join(self.options)


def _c(name: str, options: str, players: tuple[int, ...], weight: int = 1) -> Config:
    return Config(name, tuple(o for o in options.split(",") if o), players, weight)


#: Every configuration the campaign covers. 1825: each Unit and Unit combination, the regional kits R1-R3,
#: the extension kits (K1, K3, K2+K3, K5, K6, K7), D1, DB1-DB3, U3+, Unit 4, big and strict bank — the
#: combinations of meta.json's `configurations` plus a few more, each within the player range the option
#: allows and respecting mutually_exclusive_options (one Unit choice, big_bank xor strict_bank). The order
#: mixes Units and kits so that a bank cut short still covers many of them; Units 1+2+3 come last, then the
#: regionals on Units 1+2 and 1+2+3 (appended, so the earlier configurations keep their seeds).
CONFIGS: dict[str, tuple[Config, ...]] = {
    "1825": (
        _c("unit_1", "unit_1", (2, 3, 4, 5)),
        _c("unit_3_db3", "unit_3,db3", (2,)),
        _c("unit_1_d1", "unit_1,d1", (3, 4)),
        _c("unit_2_k5", "unit_2,k5", (3, 4)),
        _c("unit_1_r1_strict_bank", "unit_1,r1,strict_bank", (3, 4)),
        _c("unit_3_u3p", "unit_3,u3p", (2,)),
        _c("unit_1_db2", "unit_1,db2", (3, 4)),
        _c("unit_2", "unit_2", (2, 3, 4)),
        _c("unit_1_r2", "unit_1,r2", (3, 4)),
        _c("unit_12_big_bank", "unit_12,big_bank", (4, 6), 2),
        _c("unit_1_db1", "unit_1,db1", (3, 4)),
        _c("unit_3_db1", "unit_3,db1", (2,)),
        _c("unit_1_k2_k3", "unit_1,k2,k3", (3, 4)),
        _c("unit_1_r3", "unit_1,r3", (3, 4)),
        _c("unit_3", "unit_3", (2,)),
        _c("unit_1_k6", "unit_1,k6", (3, 4)),
        _c("unit_23", "unit_23", (3, 4, 5), 2),
        _c("unit_1_k7", "unit_1,k7", (3, 4)),
        _c("unit_3_unit_4", "unit_3,unit_4", (2,)),
        _c("unit_1_r1", "unit_1,r1", (3, 4)),
        _c("unit_1_k3", "unit_1,k3", (3, 4)),
        _c("unit_2_k3", "unit_2,k3", (3,)),
        _c("unit_12", "unit_12", (3, 4, 5, 6), 2),
        _c("unit_1_k1", "unit_1,k1", (3, 4)),
        _c("unit_1_r1_r2_r3", "unit_1,r1,r2,r3", (3, 5), 2),
        _c("unit_12_strict_bank", "unit_12,strict_bank", (4,), 2),
        _c("unit_12_k2_k3", "unit_12,k2,k3", (4, 5), 2),
        _c("unit_23_u3p_db3", "unit_23,u3p,db3", (3,), 2),
        _c("unit_123", "unit_123", (4, 5, 6), 4),
        _c("unit_12_r1", "unit_12,r1", (4, 5), 2),
        _c("unit_12_r1_r2_r3", "unit_12,r1,r2,r3", (5, 6), 2),
        _c("unit_123_r1_r2_r3", "unit_123,r1,r2,r3", (6, 7), 4),
    ),
    "1828": (
        _c("base", "", (3, 4, 5)),
        _c("ensure_good_privates", "ensure_good_privates", (3, 4, 5)),
    ),
    "1840": (
        _c("base", "", (2, 3, 4, 5, 6)),
        _c("three_player_small", "three_player_small", (3,)),
    ),
}

SEED_MIN, SEED_SPAN = 1_000_000, 9_000_000


def seed_for(title: str, config: str, players: int, index: int) -> int:
    """A stable seed for the index-th game of a (title, configuration, players) cell; odd for odd indices."""
    digest = hashlib.sha256(f"{title}/{config}/{players}/{index}".encode()).digest()
    seed = SEED_MIN + int.from_bytes(digest[:8], "big") % SEED_SPAN
    cell = hashlib.sha256(f"{title}/{config}".encode()).digest()[0]
    want_odd = (index + cell) % 2
    return seed + 1 if seed % 2 != want_odd else seed


def plan(titles: list[str] | None = None, games: int = 1, configs: list[str] | None = None,
         first: int = 0) -> list[Spec]:
    """Up to `games` seeded games per (title, configuration), interleaved across titles; `first` skips the
    rounds an earlier campaign played (its seeds), so a fresh campaign plays new ones.

    Round r holds one game of every configuration, its player count rotating through the configuration's
    counts (so `games` >= the number of counts covers each count); within a round the titles alternate, so
    a partial run covers every title and configuration early. A costly configuration (weight w) gets a game
    only every w-th round, so a long run plays it less often.
    """
    titles = titles or list(CONFIGS)
    per_title: dict[str, list[Spec]] = {}
    for title in titles:
        specs: list[Spec] = []
        for r in range(first, first + games):
            for cfg in CONFIGS[title]:
                if (configs and cfg.name not in configs) or r % cfg.weight:
                    continue
                idx = r // cfg.weight
                n = cfg.players[idx % len(cfg.players)]
                specs.append(Spec(title, cfg.name, n, seed_for(title, cfg.name, n, idx), cfg.options))
        per_title[title] = specs
    out: list[Spec] = []
    queues = [list(v) for v in per_title.values()]
    while any(queues):
        for q in queues:
            if q:
                out.append(q.pop(0))
    return out
