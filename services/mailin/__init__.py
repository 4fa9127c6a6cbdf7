"""Moves by email: a player answers the turn email and the reply is played.

`tokens` signs the per-turn reply address, `render` writes the turn text (numbered legal moves and the board
state that matters), `language` reads a reply's moves, `message` reads a mail (MIME, quoting, auto-replies),
`handler` plays the moves through the same queue as REST moves, and `server` is the SMTP/LMTP receiver.
"""
