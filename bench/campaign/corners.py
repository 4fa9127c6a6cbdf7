"""Human corners: moves people make that the oracle bot never does, grafted onto records the reference played.

From each source record (the public corpus by default) come derived records, one corner each:

  chat       players write at a few points of the game, one of them not the acting player, and once more
             after the game's end when it ended
  end_game   a player, not necessarily the one acting, ends the game at a point in its second half or so;
             the rest of the record is dropped
  undo_to    an undo back several moves by `action_id`, then the undone moves posted again
  undo_redo  an undo back several moves by `action_id`, then a redo, then the record goes on

Every point is drawn from a generator seeded by the record, the corner and `--seed`, so the same call makes
the same records everywhere. The reference then writes each derived record's golden trace (`tools/trace.rb`,
as it loads a record); a record it cannot load is logged and dropped, since a corner the reference refuses is
not a legal one. The check is the forward one: Railpost replays the record in replay and live mode and must
match the trace line by line.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import zlib
from pathlib import Path
from typing import Any

from bench.campaign.env import Oracle

KINDS = ("chat", "end_game", "undo_to", "undo_redo")
#: action types that take no part in a window undone and posted again: they are not moves of the game
NOT_A_MOVE = frozenset({"undo", "redo", "message", "end_game"})


def derive(record: dict[str, Any], kind: str, rng: random.Random) -> dict[str, Any] | None:
    """The record with one corner of `kind` grafted on, ids renumbered; None when the record has no room
    for it (too short, or no window of ordinary moves)."""
    actions = [dict(a) for a in record.get("actions") or []]
    if len(actions) < 30:
        return None
    players = [p["id"] for p in record["players"]]
    made = {"chat": _chat, "end_game": _end_game, "undo_to": _undo_to, "undo_redo": _undo_redo}[kind](
        actions, players, rng, bool(record.get("result")))
    if made is None:
        return None
    out = {**record, "actions": _renumber(made)}
    out.pop("result", None)
    out.pop("game_end_reason", None)
    out["description"] = f"{record.get('description') or ''} [corner: {kind}]".strip()
    return out


def _chat(actions: list[dict[str, Any]], players: list[Any], rng: random.Random,
          ended: bool) -> list[dict[str, Any]] | None:
    points = sorted(rng.sample(range(1, len(actions)), 3))
    out: list[dict[str, Any]] = []
    for i, action in enumerate(actions):
        if points and i == points[0]:
            points.pop(0)
            out.append(_meta("message", rng.choice(players), action, message=f"a word before move {i + 1}"))
        out.append(action)
    if ended:
        out.append(_meta("message", rng.choice(players), actions[-1], message="good game"))
    return out


def _end_game(actions: list[dict[str, Any]], players: list[Any], rng: random.Random,
              ended: bool) -> list[dict[str, Any]] | None:
    cut = rng.randrange(len(actions) // 3, len(actions) - 1)
    return actions[:cut] + [_meta("end_game", rng.choice(players), actions[cut - 1])]


def _window(actions: list[dict[str, Any]], rng: random.Random) -> tuple[int, int] | None:
    """(start, end): moves actions[start:end] to undo, all ordinary moves, the action before them ordinary
    too (the undo names it), and no undo or redo among the next few actions (they would act on our undo)."""
    for _ in range(200):
        k = rng.randint(2, 5)
        end = rng.randrange(k + 10, len(actions) - 4)
        start = end - k
        near = actions[start - 1:end + 4]
        if all(str(a.get("type")) not in NOT_A_MOVE for a in near):
            return start, end
    return None


def _undo_to(actions: list[dict[str, Any]], players: list[Any], rng: random.Random,
             ended: bool) -> list[dict[str, Any]] | None:
    found = _window(actions, rng)
    if found is None:
        return None
    start, end = found
    undo = _meta("undo", actions[end - 1].get("entity"), actions[end - 1], action_id=actions[start - 1]["id"],
                 entity_type=actions[end - 1].get("entity_type"))
    # the moves posted again carry new ids; later references to the originals name the copies
    again = [{**a, "_was": a["id"]} for a in actions[start:end]]
    for a in actions[start:end]:
        a["_undone"] = True
    return actions[:end] + [undo] + again + actions[end:]


def _undo_redo(actions: list[dict[str, Any]], players: list[Any], rng: random.Random,
               ended: bool) -> list[dict[str, Any]] | None:
    found = _window(actions, rng)
    if found is None:
        return None
    start, end = found
    last = actions[end - 1]
    undo = _meta("undo", last.get("entity"), last, action_id=actions[start - 1]["id"],
                 entity_type=last.get("entity_type"))
    redo = _meta("redo", last.get("entity"), last, entity_type=last.get("entity_type"))
    return actions[:end] + [undo, redo] + actions[end:]


def _meta(kind: str, entity: Any, near: dict[str, Any], entity_type: str | None = None,
          **fields: Any) -> dict[str, Any]:
    return {"type": kind, "entity": entity, "entity_type": entity_type or "player",
            "created_at": near.get("created_at"), **fields}


def _renumber(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ids 1..n in order; every `action_id` follows its move, and one that named a move undone and posted
    again names the copy (the copies come after the originals, so the copy's id is the one kept)."""
    new_id: dict[Any, int] = {}
    for i, action in enumerate(actions, 1):
        was = action.pop("_was", None)
        action.pop("_undone", None)
        if was is not None:
            new_id[was] = i
        elif action.get("id") is not None:
            new_id[action["id"]] = i
    for i, action in enumerate(actions, 1):
        action["id"] = i
    for action in actions:
        if action.get("action_id") is not None:
            action["action_id"] = new_id.get(action["action_id"], action["action_id"])
    return actions


def make(oracle: Oracle, sources: list[Path], bank: Path, kinds: list[str], seed: int,
         each: bool = False) -> list[Path]:
    """Write every derived record with its golden trace (and the source's set-up digest) into
    BANK/<title folder>/, shortest sources first; returns the records made now or before. With `each`, a
    source gets one corner only, the kinds taking turns (a quarter of the reference's time). A record the
    reference cannot load is logged in BANK/refused.jsonl and not kept."""
    made = []
    for n, source in enumerate(sorted(sources, key=lambda p: (p.stat().st_size, str(p)))):
        record = json.loads(source.read_text(encoding="utf-8"))
        stem = source.name[: -len(".json")]
        folder = bank / source.parent.name
        folder.mkdir(parents=True, exist_ok=True)
        for kind in [kinds[n % len(kinds)]] if each else kinds:
            name = f"{stem}__{kind}_{seed}"
            target = folder / f"{name}.json"
            trace = folder / f"{name}.trace.jsonl.gz"
            if trace.exists():
                made.append(target)
                continue
            rng = random.Random(zlib.crc32(f"{stem}/{kind}/{seed}".encode()))
            derived = derive(record, kind, rng)
            if derived is None:
                continue
            target.write_text(json.dumps(derived), encoding="utf-8")
            setup = source.with_name(f"{stem}.setup.json")
            if setup.exists():
                shutil.copyfile(setup, folder / f"{name}.setup.json")
            cmd = [oracle.ruby, str(oracle.dir / "tools" / "trace.rb"), str(target), str(trace)]
            run = subprocess.run(cmd, env=oracle.env(), capture_output=True, text=True, timeout=1800)
            if run.returncode != 0 or not trace.exists():
                with (bank / "refused.jsonl").open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps({"name": name, "rc": run.returncode,
                                         "error": (run.stderr or run.stdout)[-400:]}) + "\n")
                for leftover in folder.glob(f"{name}.*"):
                    leftover.unlink()
                print(f"corners: {name}: the reference cannot load it (logged)", flush=True)
                continue
            print(f"corners: {name}: traced", flush=True)
            made.append(target)
    return made


def kind_of(record_path: Path) -> str:
    """The corner a derived record carries (its name says)."""
    tail = record_path.name[: -len(".json")].rsplit("__", 1)[-1]
    return tail.rsplit("_", 1)[0]
