"""Each corporation's runs and what it did with them, in order: the page's revenue and dividend history.

Read from the session's stored actions (undone ones left out, automatic ones included: 1840's runs and
1825's receivership runs are auto actions), so the engine keeps no extra state for a view.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from shared.engine import GameSession
from shared.engine.session import final_active_flags

BAR_WIDTH, BAR_GAP, CHART_HEIGHT = 8, 2, 28


def _surviving(actions: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for action, active in zip(actions, final_active_flags(actions), strict=True):
        if not active:
            continue
        yield action
        yield from action.get("auto_actions") or []


def _revenue(action: dict[str, Any]) -> int:
    routes = action.get("routes") or []
    return sum(int(r.get("revenue") or 0) for r in routes) + int(action.get("extra_revenue") or 0)


def earnings(session: GameSession) -> dict[str, list[dict[str, Any]]]:
    """corporation -> [{"revenue", "kind"}] in the order run: kind is the dividend that followed the run
    ("payout", "withhold", a title's own such as 1840's "variable"), or None when none did (yet, or ever: an
    1840 tram line's run goes to its major, which decides). A dividend that follows no run of its own (an
    1840 major paying out of its lines' revenue) is an entry of its own, its amount as the revenue."""
    out: dict[str, list[dict[str, Any]]] = {}
    for action in _surviving(session.actions):
        entity = action.get("entity")
        if not isinstance(entity, str):
            continue
        if action.get("type") == "run_routes":
            out.setdefault(entity, []).append({"revenue": _revenue(action), "kind": None})
        elif action.get("type") == "dividend":
            runs = out.setdefault(entity, [])
            if runs and runs[-1]["kind"] is None:
                runs[-1]["kind"] = str(action.get("kind"))
            elif action.get("amount") is not None:  # paid from what others earned (1840's majors, from lines)
                runs.append({"revenue": int(action["amount"]), "kind": str(action.get("kind"))})
    return out


def chart_svg(runs: list[dict[str, Any]]) -> str:
    """A bar per run, as tall as its revenue against the corporation's best; paid-out bars filled, withheld
    ones hollow, runs with no dividend of their own grey. Inline SVG: the page stays readable without script."""
    if not runs:
        return ""
    top = max(r["revenue"] for r in runs) or 1
    width = len(runs) * (BAR_WIDTH + BAR_GAP)
    bars = []
    for i, run in enumerate(runs):
        height = max(1, round(run["revenue"] * CHART_HEIGHT / top))
        x, y = i * (BAR_WIDTH + BAR_GAP), CHART_HEIGHT - height
        kind = run["kind"]
        style = 'class="bar plain"' if kind is None else 'class="bar kept"' if kind == "withhold" else 'class="bar paid"'
        label = f"{run['revenue']}" + (f" ({kind})" if kind else "")
        bars.append(f'<rect {style} x="{x}" y="{y}" width="{BAR_WIDTH}" height="{height}"><title>{label}</title></rect>')
    return (f'<svg class="earnings" width="{width}" height="{CHART_HEIGHT}" viewBox="0 0 {width} {CHART_HEIGHT}" '
            f'role="img" aria-label="runs: {", ".join(str(r["revenue"]) for r in runs)}">{"".join(bars)}</svg>')
