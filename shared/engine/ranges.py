"""Open-ended values in `legal-actions` state their range. Bids, not only the prices the engine offers as examples: the minimum
(the lowest price the engine offers for that target), the step (the board data's `MIN_BID_INCREMENT`; with
`MUST_BID_INCREMENT_MULTIPLE` bids must also be multiples of it) and the maximum (what the bidder can commit:
the round's own `max_bid` where the title has one, which deducts cash committed to other open bids, else the
bidder's cash). A client can then offer any valid bid, not just the few listed.

`legal_actions_of` (what legal-actions answers a player) applies it to every answer; other ranges (a train
between corporations, a private's price, a standing order's share count) are stated by the step that offers
them, beside the meaningful points it lists."""

from __future__ import annotations

from typing import Any

TARGETS = ("company", "corporation", "minor")


def _target(action: dict[str, Any]) -> tuple[str, Any] | None:
    for key in TARGETS:
        if key in action:
            return key, action[key]
    return None


def _bidder_cash(game: Any, action: dict[str, Any]) -> int | None:
    entity = action.get("entity")
    try:
        if action.get("entity_type") == "player":
            return int(game.player(entity).cash)
        return int(game.corporations[entity].cash)
    except (KeyError, AttributeError, TypeError, ValueError):
        return None


def _maximum(game: Any, action: dict[str, Any], target: Any, offered: int) -> int | None:
    round_ = getattr(game, "round", None)
    max_bid = getattr(round_, "max_bid", None)
    if callable(max_bid) and action.get("entity_type") == "player":
        try:
            return int(max_bid(game, action["entity"], target))
        except Exception:  # a title whose max_bid wants something else: fall back to cash
            pass
    cash = _bidder_cash(game, action)
    return None if cash is None else max(cash, offered)


def annotate_bids(game: Any, actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same actions; every `bid` gains `min`, `step`, `max` (and `multiple_of` where the data says so)."""
    lows: dict[tuple[Any, str, Any], int] = {}
    for action in actions:
        target = _target(action) if action.get("type") == "bid" else None
        if target is not None and isinstance(action.get("price"), int):
            key = (action.get("entity"), *target)
            lows[key] = min(lows.get(key, action["price"]), action["price"])
    if not lows:
        return actions
    data = game.defn.data if hasattr(game, "defn") else None
    step = int(data.rule("MIN_BID_INCREMENT", 5)) if data is not None else 5
    multiple = bool(data.rule("MUST_BID_INCREMENT_MULTIPLE", False)) if data is not None else False
    out = []
    for action in actions:
        target = _target(action) if action.get("type") == "bid" else None
        key = (action.get("entity"), *target) if target is not None else None
        if key not in lows:
            out.append(action)
            continue
        low = lows[key]
        high = _maximum(game, action, key[2], low)
        extra: dict[str, Any] = {"min": low, "step": step, "max": None if high is None else max(high, low)}
        if multiple:
            extra["multiple_of"] = step
        out.append({**action, **extra})
    return out


# the price of a train changing hands between corporations, or of a private a corporation buys, is the
# buyers' to choose within limits: the offers list its meaningful points (lowest, face value, all the cash
# there is), and each states the whole range
PRICED = {"buy_train": ("train", "shell", "variant"), "buy_company": ("company",)}


def _negotiated(game: Any, action: dict[str, Any]) -> bool:
    if action.get("type") == "buy_company":
        return True
    train = game.depot.by_id(action.get("train")) if hasattr(game, "depot") else None
    return train is not None and isinstance(train.owner, str)  # a corporation's train, not the bank's


def annotate_prices(game: Any, actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same actions; a negotiated price offered at two or more points gains `min`, `step`, `max`."""
    spans: dict[tuple[Any, ...], list[int]] = {}

    def key(action: dict[str, Any]) -> tuple[Any, ...] | None:
        fields = PRICED.get(action.get("type"))  # type: ignore[arg-type]
        if fields is None or not isinstance(action.get("price"), int) or "min" in action:
            return None
        if not _negotiated(game, action):
            return None
        return (action["type"], action.get("entity"), *(repr(action.get(f)) for f in fields))

    for action in actions:
        k = key(action)
        if k is not None:
            spans.setdefault(k, []).append(action["price"])
    if not any(len(set(prices)) > 1 for prices in spans.values()):
        return actions
    multiple = int(game.rules.train_price_multiple(game)) if hasattr(game, "rules") else 1
    out = []
    for action in actions:
        k = key(action)
        prices = spans.get(k) if k is not None else None
        if not prices or len(set(prices)) < 2:
            out.append(action)
            continue
        step = multiple if action["type"] == "buy_train" else 1
        out.append({**action, "min": min(prices), "step": step, "max": max(prices)})
    return out


def annotate(game: Any, actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every range legal-actions states: bids, negotiated prices."""
    return annotate_prices(game, annotate_bids(game, actions))
