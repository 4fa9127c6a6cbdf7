"""Use cases of play-by-mail, shared by the gateway (HTTP) and the rules worker (queue): loading sessions,
applying queued commands in order, and handing work to whichever queue is configured."""
