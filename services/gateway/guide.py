"""What the API documentation says beyond the schemas: one example per action type, the undo/redo and
standing-order vocabulary, which token does what, and how to test webhooks locally. The OpenAPI document
carries it (`info.description` and the action body's `examples`), so the docs page and any other OpenAPI
reader show the same text."""

from __future__ import annotations

from typing import Any

# One submitted action per type, as a client posts it in `{"action": ..., "expected_version": N}`. Player
# ids (7, 8) and corporation, company, hex and train names are illustrative: `GET /games/{id}/legal-actions`
# lists the ones valid now.
ACTION_EXAMPLES: dict[str, tuple[str, dict[str, Any]]] = {
    "bid": ("bid on a private in an auction (1828, 1840)",
            {"type": "bid", "entity": 7, "entity_type": "player", "company": "C&P", "price": 85}),
    "buy_company": ("buy a private outright (1825)",
                    {"type": "buy_company", "entity": 7, "entity_type": "player", "company": "C&W", "price": 130}),
    "sell_company": ("sell a private to the bank",
                     {"type": "sell_company", "entity": 7, "entity_type": "player", "company": "L&M", "price": 180}),
    "par": ("start a corporation at a par price",
            {"type": "par", "entity": 7, "entity_type": "player", "corporation": "LNWR", "share_price": "100,0,15"}),
    "buy_shares": ("buy a share", {"type": "buy_shares", "entity": 7, "entity_type": "player",
                                   "shares": ["LNWR_1"], "percent": 10}),
    "sell_shares": ("sell shares", {"type": "sell_shares", "entity": 7, "entity_type": "player",
                                    "shares": ["LBSC_1", "LBSC_2"], "percent": 20}),
    "choose": ("make a choice the round offers", {"type": "choose", "entity": 7, "entity_type": "player",
                                                  "choice": "NYC"}),
    "choose_ability": ("use a company's ability", {"type": "choose_ability", "entity": "HB",
                                                   "entity_type": "company", "choice": {"type": "sell"}}),
    "lay_tile": ("lay or upgrade a tile", {"type": "lay_tile", "entity": "LNWR", "entity_type": "corporation",
                                           "hex": "T14", "tile": "8-0", "rotation": 2}),
    "place_token": ("place a station token", {"type": "place_token", "entity": "LNWR",
                                              "entity_type": "corporation", "city": "S13-0-1", "slot": 0}),
    "remove_token": ("remove a token (1840)", {"type": "remove_token", "entity": "5", "entity_type": "corporation",
                                               "city": "D22-0-0", "slot": 0}),
    "run_routes": ("run trains (the engine computes and checks the revenue)",
                   {"type": "run_routes", "entity": "LNWR", "entity_type": "corporation",
                    "routes": [{"train": "2-1", "connections": [["T16", "T14", "S13"]]}]}),
    "dividend": ("pay out or withhold", {"type": "dividend", "entity": "LNWR", "entity_type": "corporation",
                                         "kind": "payout"}),
    "buy_train": ("buy a train", {"type": "buy_train", "entity": "LNWR", "entity_type": "corporation",
                                  "train": "2-0", "price": 180, "variant": "2"}),
    "discard_train": ("discard a train over the limit", {"type": "discard_train", "entity": "NYH-MP",
                                                         "entity_type": "system", "train": "3-5"}),
    "swap_train": ("swap a train (1828 systems)", {"type": "swap_train", "entity": "CPR-NW",
                                                   "entity_type": "system", "train": "2-2"}),
    "scrap_train": ("scrap a train (1840)", {"type": "scrap_train", "entity": "15", "entity_type": "corporation",
                                             "train": "Y1-0"}),
    "reassign_trains": ("reassign trains between corporations (1840)",
                        {"type": "reassign_trains", "entity": "WT", "entity_type": "corporation",
                         "assignments": [{"train": "O1-0", "corporation": "4"}]}),
    "merge": ("merge (1828) or take over a line (1840)", {"type": "merge", "entity": "NYC",
                                                          "entity_type": "corporation", "corporation": "PRR"}),
    "failed_merge": ("declare a possible 1828 merger failed (it counts as the turn's purchase)",
                     {"type": "failed_merge", "entity": 7, "entity_type": "player", "corporations": ["ERIE", "OSH"]}),
    "special_buy": ("buy a special item", {"type": "special_buy", "entity": "GER", "entity_type": "corporation",
                                           "description": "5", "cost": 10}),
    "bankrupt": ("declare bankruptcy (1828)", {"type": "bankrupt", "entity": "CPR", "entity_type": "corporation"}),
    "pass": ("pass / end the step or turn", {"type": "pass", "entity": 7, "entity_type": "player"}),
    "end_game": ("end the game now (1825, 1840)", {"type": "end_game", "entity": 7, "entity_type": "player"}),
    "program_buy_shares": ("standing order: keep buying a corporation",
                           {"type": "program_buy_shares", "entity": 7, "entity_type": "player",
                            "corporation": "LNWR", "until_condition": 8, "from_market": False,
                            "auto_pass_after": False}),
    "program_share_pass": ("standing order: pass in stock rounds",
                           {"type": "program_share_pass", "entity": 7, "entity_type": "player",
                            "unconditional": False, "indefinite": False}),
    "program_disable": ("switch your standing order off", {"type": "program_disable", "entity": 7,
                                                           "entity_type": "player", "reason": "user"}),
    "undo": ("take back the table's last action (or back to `action_id`)",
             {"type": "undo", "entity": 7, "entity_type": "player"}),
    "redo": ("redo what the last undo took back", {"type": "redo", "entity": 7, "entity_type": "player"}),
    "message": ("chat to the table (`@Name` or `@id` mentions notify)",
                {"type": "message", "entity": 7, "entity_type": "player", "message": "@8 your turn!"}),
}


def action_examples() -> dict[str, dict[str, Any]]:
    """OpenAPI `examples` for the action body: one per action type, at an illustrative version."""
    return {kind: {"summary": f"{kind}: {summary}", "value": {"action": action, "expected_version": 12}}
            for kind, (summary, action) in ACTION_EXAMPLES.items()}


GUIDE = """Play-by-mail server for 18xx railway games (1825, 1828, 1840, 1833NE). `GET /titles` lists every title,
its options (with descriptions), player counts and mutually exclusive options.

## Tokens: which does what
Send tokens as `Authorization: Bearer <token>`. Every token is shown once, when it is made.

| token | made by | lets you |
| --- | --- | --- |
| **player token** | `POST /players`, or answered when you join without one | prove an identity: join another game as that player (`player_id`), import a record, manage notifications |
| **seat token** | `POST /games/{id}/join`, `POST /games/import` | act in that one game: actions, receipts, legal actions, start; read it if it is private |
| **invitation token** | `POST /games` with `visibility: private` (answered to the creator only) | take a seat in that private game: `{"name": ..., "invitation": ...}` |
| **admin token** | the operator's `ADMIN_TOKEN` | everything; bind a record's player ids to existing identities on import; choose player ids |

An import binds a record's player ids to existing identities only for your own id (player token) or with the
admin token; every other player of the record gets a fresh identity, answered in `players` with its token.

## Moves
`POST /games/{id}/actions` with `{"action": ..., "expected_version": N}` and an `Idempotency-Key` header.
Keys are yours alone (another caller's identical key is another command); resending the same key and body
answers the first receipt, so retry freely after a timeout or a 503. `?wait=N` long-polls for the outcome.
One example per action type is in the request body's examples below; `GET /games/{id}/legal-actions` lists
what you may do now: the moves of every entity you control (you, the corporations you preside, your and their
privates), then your standing orders (`program_*`, open at any moment); `?entity=` narrows it to one entity.
Open-ended values state their range: every bid, a train bought from another corporation and a private bought
by a corporation carry `min`, `step` and `max` beside the `price` listed (a buy order's share count likewise).

**Undo and redo** belong to the table, not to one player: any seat may send `{"type": "undo"}` (the most
recent action that still counts is taken back), `{"type": "undo", "action_id": X}` (back to right after the
action whose id is X; 0 = the start) or `{"type": "redo"}` (the most recent undone group counts again). A new
normal action clears what could be redone. `message` (chat) is never undone.

**Standing orders** act for you while you are away: `program_buy_shares` (keep buying one corporation until
`until_condition`: `"float"` or a share count; `from_market`; `auto_pass_after`), `program_share_pass` (pass
in stock rounds; `indefinite` keeps it past the round) and `program_disable` (switch yours off). A player has
at most one order; enabling one replaces the other. Orders fire as the game reaches you; the actions they
take appear as the triggering action's `auto_actions` in the event log, and an order the rules end is
switched off by a `program_disable` with its `reason`.

## The table: clock, undo requests, seats
`GET /games/{id}/clock` shows the game's time control, the open votes and requests and the seats' holders.
`PUT /games/{id}/clock` sets the time control (`none`, `deadline` with `per_move_hours`, `bank` with
`bank_hours`); `PUT .../clock/hours` sets your own time zone, quiet hours, weekends off and auto-pass;
`PUT .../clock/vacation` with `{"until": <date-time>}` stops your clock until then (`null`: back now). When a
seat's deadline passes, the others vote (`POST .../clock/vote`: `extend`, `substitute` with the seat that
stands in, or `open_seat`); a stand-in then acts for the absent seat this turn with its own token.

**Undo requests**: an undo into other players' moves needs their consent (a game created with `undo:
"consent"`, the default). `POST .../undo-requests` `{"kind": "undo"}` asks the table; each affected seat
answers `POST .../undo-requests/answer` `{"accept": true}`; once all accept, the undo is applied.

**Seat hand-over**: a seated player offers an open seat (`POST .../seats/{seat}/offer`, answering an
invitation token once; a player leaving opens his with `POST .../seats/resign`); the newcomer claims it
(`POST .../seats/{seat}/claim` with the invitation and a name: a seat token that works once the table
agrees, and a player token); the others answer `POST .../seats/claim/answer` `{"accept": true}`.

**Table proposals** (ending the game by agreement, purchases from another player's holding): where the
game's rules ask for consent (`end_game: "vote"`, `purchases: "consent"`, the defaults of a new game),
legal-actions lists such moves under `proposals`, each naming `needs_consent`. Post one as an action: the
answer is 202 `{"status": "proposed", "proposal": ...}`; the players asked answer
`POST .../proposals/answer` `{"accept": true}` and once all accept the move is played at once, in the
proposer's name. In an 1828 merger started with another player's corporation, its president is offered
`{"type": "decline"}` beside the partners: posting it takes the start back.

## Errors
Every error is JSON: `{"error": code, "message": text}`, the HTTP server's own too (an oversize request line
or header, a malformed request); invalid requests add `details` per field (400; an action's field its type
does not have is one, named as `action.<field>`);
refused actions are receipts with `status: refused` plus `error`, `message`, `rule` and `reason`. 401 no or
unknown token, 403 wrong seat/entity, 404 unknown game, 409 stale version, 413 too large, 422 refused by the
rules (setup errors list the `valid` values), **503 + `Retry-After`** while the database or queue is
unreachable (retry with the same Idempotency-Key).

## Testing webhooks locally
1. Run a receiver: `python3 -m http.server 9000` answers 501 to POSTs, so use a tiny one, e.g.
   `python3 -c "import http.server as h; h.HTTPServer(('127.0.0.1', 9000), type('R', (h.BaseHTTPRequestHandler,), {'do_POST': lambda s: (print(s.headers, s.rfile.read(int(s.headers['Content-Length']))), s.send_response(204), s.end_headers())})).serve_forever()"`.
2. Start the server allowing plain-HTTP loopback hooks (production refuses them):
   `NOTIFIER_ALLOW_HTTP=1 NOTIFIER_ALLOW_LOOPBACK=1 make run`.
3. Subscribe with your player token: `PUT /notifier/subscriptions/default` with
   `{"channel": "webhook", "url": "http://127.0.0.1:9000/hook"}`; the answer holds the signing secret.
4. Play a move in a game you sit in; the receiver prints a Standard Webhooks request (`webhook-id`,
   `webhook-timestamp`, `webhook-signature` headers). `GET /notifier/deliveries` shows each attempt;
   `POST /notifier/deliveries/{id}/redeliver` sends one again.
Links in notifications point to `PUBLIC_URL` (default `http://127.0.0.1:$PORT`) + `/games/{id}`, the game's page.
"""
